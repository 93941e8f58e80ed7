//! A thread's messages as each protocol's message list: the AI SDK's `UIMessage[]` (what
//! `useChat` starts from) and AG-UI's `Message[]`.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::ai_sdk::question_part;
use super::event::input_of;
use super::run::result_key;
use crate::message::{AssistantMessage, ContentBlock, Message};
use crate::run::PendingCall;
use crate::tool::QuestionKind;

fn text_of(blocks: &[ContentBlock]) -> String {
    blocks.iter().filter_map(|b| b.as_text()).collect()
}

fn reasoning_of(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Reasoning { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The thread as AI SDK UI messages: one message per user message, and one assistant message
/// per run of answers and tool results between them (as `useChat` shows a streamed run).
/// The paused answer (`paused`: its text, without its calls) and its calls (`pending`) close
/// the last assistant message, the calls waiting for review in state `approval-requested`,
/// calls a reviewer rejected (`denied`) in state `output-denied`, the calls waiting for an answer (a tool's question, followed by its `data-question` part,
/// or an external tool's call for the client) in state `input-available`.
pub(crate) fn ai_sdk(
    messages: &[Message],
    paused: Option<&AssistantMessage>,
    pending: &[PendingCall],
    denied: &HashSet<String>,
) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut assistant: Option<Vec<Value>> = None;
    // Results seen per call id (ids repeat in a thread): the key of a denied call.
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let flush = |out: &mut Vec<Value>, parts: Option<Vec<Value>>| {
        if let Some(parts) = parts {
            let id = format!("m{}", out.len() + 1);
            out.push(json!({ "id": id, "role": "assistant", "parts": parts }));
        }
    };
    for message in messages {
        match message {
            Message::System { .. } => {}
            Message::User(user) => {
                flush(&mut out, assistant.take());
                let id = format!("m{}", out.len() + 1);
                out.push(json!({
                    "id": id,
                    "role": "user",
                    "parts": [{ "type": "text", "text": text_of(&user.content) }],
                }));
            }
            Message::Assistant(answer) => {
                let parts = assistant.get_or_insert_with(Vec::new);
                parts.push(json!({ "type": "step-start" }));
                let reasoning = reasoning_of(&answer.content);
                if !reasoning.is_empty() {
                    parts.push(json!({ "type": "reasoning", "text": reasoning, "state": "done" }));
                }
                let text = text_of(&answer.content);
                if !text.is_empty() {
                    parts.push(json!({ "type": "text", "text": text, "state": "done" }));
                }
                for call in &answer.tool_calls {
                    parts.push(json!({
                        "type": format!("tool-{}", call.name),
                        "toolCallId": call.id,
                        "state": "input-available",
                        "input": input_of(&call.arguments),
                    }));
                }
            }
            Message::Tool(result) => {
                let n = seen.entry(result.call_id.as_str()).or_default();
                let key = result_key(&result.call_id, *n);
                *n += 1;
                let parts = assistant.get_or_insert_with(Vec::new);
                if let Some(part) = parts
                    .iter_mut()
                    .find(|p| p["toolCallId"] == result.call_id.as_str())
                {
                    let text = text_of(&result.content);
                    if denied.contains(&key) {
                        part["state"] = json!("output-denied");
                        part["approval"] = json!({ "id": result.call_id, "approved": false });
                    } else if result.is_error {
                        part["state"] = json!("output-error");
                        part["errorText"] = json!(text);
                    } else {
                        part["state"] = json!("output-available");
                        part["output"] = json!(text);
                    }
                }
            }
        }
    }
    if !pending.is_empty() {
        let parts = assistant.get_or_insert_with(Vec::new);
        // A pause at a question comes after its answer's calls ran: the thread's messages
        // hold the answer already, and its parts only change state.
        let shown = pending
            .iter()
            .any(|c| parts.iter().any(|p| p["toolCallId"] == c.call.id.as_str()));
        if !shown {
            parts.push(json!({ "type": "step-start" }));
        }
        if let Some(answer) = paused.filter(|_| !shown) {
            let reasoning = reasoning_of(&answer.content);
            if !reasoning.is_empty() {
                parts.push(json!({ "type": "reasoning", "text": reasoning, "state": "done" }));
            }
            let text = text_of(&answer.content);
            if !text.is_empty() {
                parts.push(json!({ "type": "text", "text": text, "state": "done" }));
            }
        }
        for c in pending {
            let mut part = json!({
                "type": format!("tool-{}", c.call.name),
                "toolCallId": c.call.id,
                "state": "input-available",
                "input": input_of(&c.call.arguments),
            });
            if c.review.is_some() {
                part["state"] = json!("approval-requested");
                part["approval"] = json!({ "id": c.call.id });
            }
            if let Some(result) = &c.result {
                let text = text_of(&result.content);
                if result.is_error {
                    part["state"] = json!("output-error");
                    part["errorText"] = json!(text);
                } else {
                    part["state"] = json!("output-available");
                    part["output"] = json!(text);
                }
            }
            match parts
                .iter_mut()
                .find(|p| p["toolCallId"] == c.call.id.as_str())
            {
                // A result the messages hold already stands.
                Some(old) if old["state"] == "input-available" => *old = part,
                Some(_) => {}
                None => parts.push(part),
            }
            if let Some(question) = &c.question
                && question.kind == QuestionKind::Ask
            {
                parts.push(question_part(&c.call, &question.question));
            }
        }
    }
    flush(&mut out, assistant.take());
    out
}

/// The thread as AG-UI messages (`user`, `assistant` with `toolCalls`, `tool`), the calls
/// waiting for review last.
pub(crate) fn ag_ui(
    messages: &[Message],
    paused: Option<&AssistantMessage>,
    pending: &[PendingCall],
) -> Vec<Value> {
    let mut out = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let id = format!("m{}", i + 1);
        match message {
            Message::System { .. } => {}
            Message::User(user) => {
                out.push(json!({ "id": id, "role": "user", "content": text_of(&user.content) }))
            }
            Message::Assistant(answer) => {
                let mut m =
                    json!({ "id": id, "role": "assistant", "content": text_of(&answer.content) });
                if !answer.tool_calls.is_empty() {
                    m["toolCalls"] = tool_calls(answer.tool_calls.iter());
                }
                out.push(m);
            }
            Message::Tool(result) => {
                let mut m = json!({
                    "id": id,
                    "role": "tool",
                    "toolCallId": result.call_id,
                    "content": text_of(&result.content),
                });
                if result.is_error {
                    m["error"] = json!(text_of(&result.content));
                }
                out.push(m);
            }
        }
    }
    let asked = |id: &str| {
        out.iter().any(|m: &Value| {
            m["toolCalls"]
                .as_array()
                .is_some_and(|c| c.iter().any(|c| c["id"] == id))
        })
    };
    if !pending.is_empty() && !pending.iter().any(|c| asked(&c.call.id)) {
        out.push(json!({
            "id": format!("m{}", messages.len() + 1),
            "role": "assistant",
            "content": paused.map(|a| text_of(&a.content)).unwrap_or_default(),
            "toolCalls": tool_calls(pending.iter().map(|c| &c.call)),
        }));
    }
    for c in pending {
        let answered = out
            .iter()
            .any(|m| m["role"] == "tool" && m["toolCallId"] == c.call.id.as_str());
        if !answered && let Some(result) = &c.result {
            let mut m = json!({
                "id": format!("m{}", out.len() + 1),
                "role": "tool",
                "toolCallId": c.call.id,
                "content": text_of(&result.content),
            });
            if result.is_error {
                m["error"] = json!(text_of(&result.content));
            }
            out.push(m);
        }
    }
    out
}

fn tool_calls<'a>(calls: impl Iterator<Item = &'a crate::message::ToolCall>) -> Value {
    calls
        .map(|c| {
            json!({
                "id": c.id,
                "type": "function",
                "function": { "name": c.name, "arguments": c.arguments },
            })
        })
        .collect()
}
