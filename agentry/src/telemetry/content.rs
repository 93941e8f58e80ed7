//! Whether message content goes on spans, and its shape there (the conventions' JSON:
//! `[{"role": .., "parts": [{"type": "text", "content": ..}, ..]}]`).

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use crate::message::{AssistantMessage, ContentBlock, Message};

static CAPTURE: AtomicBool = AtomicBool::new(false);

/// Records message content on spans from now on (`true`) or stops (`false`, the default):
/// the model's input and output messages on `chat` spans, a tool call's arguments and result
/// on `execute_tool` spans. Content may hold personal data; keep it off unless the trace
/// store may hold it. Process-wide.
///
/// ```
/// use agentry::telemetry;
/// assert!(!telemetry::capture_content());
/// telemetry::set_capture_content(true);
/// assert!(telemetry::capture_content());
/// telemetry::set_capture_content(false);
/// ```
pub fn set_capture_content(on: bool) {
    CAPTURE.store(on, Ordering::Relaxed);
}

/// Whether message content is recorded on spans (see [`set_capture_content`]).
pub fn capture_content() -> bool {
    CAPTURE.load(Ordering::Relaxed)
}

fn parts(blocks: &[ContentBlock]) -> Vec<Value> {
    blocks
        .iter()
        .map(|block| match block {
            ContentBlock::Text { text, .. } => json!({"type": "text", "content": text}),
            ContentBlock::Reasoning { text, .. } => json!({"type": "reasoning", "content": text}),
            ContentBlock::Image { .. } => json!({"type": "image"}),
            ContentBlock::File { .. } => json!({"type": "file"}),
            ContentBlock::Audio { .. } => json!({"type": "audio"}),
            _ => json!({"type": "other"}),
        })
        .collect()
}

fn assistant(message: &AssistantMessage) -> Value {
    let mut parts = parts(&message.content);
    for call in &message.tool_calls {
        let arguments = serde_json::from_str::<Value>(&call.arguments)
            .unwrap_or_else(|_| Value::String(call.arguments.clone()));
        parts.push(
            json!({"type": "tool_call", "id": call.id, "name": call.name, "arguments": arguments}),
        );
    }
    if let Some(refusal) = &message.refusal {
        parts.push(json!({"type": "refusal", "content": refusal}));
    }
    json!({"role": "assistant", "parts": parts})
}

/// `gen_ai.input.messages` as JSON.
pub(crate) fn input_messages(messages: &[Message]) -> String {
    let list: Vec<Value> = messages
        .iter()
        .map(|m| match m {
            Message::System { content } => {
                json!({"role": "system", "parts": [{"type": "text", "content": content}]})
            }
            Message::User(user) => json!({"role": "user", "parts": parts(&user.content)}),
            Message::Assistant(a) => assistant(a),
            Message::Tool(result) => json!({"role": "tool", "parts": [{
                "type": "tool_call_response",
                "id": result.call_id,
                "result": Message::Tool(result.clone()).text(),
            }]}),
        })
        .collect();
    Value::Array(list).to_string()
}

/// `gen_ai.output.messages` as JSON.
pub(crate) fn output_messages(message: &AssistantMessage, finish_reason: &str) -> String {
    let mut value = assistant(message);
    value["finish_reason"] = Value::String(finish_reason.to_owned());
    Value::Array(vec![value]).to_string()
}
