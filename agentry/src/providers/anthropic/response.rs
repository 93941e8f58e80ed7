//! A Messages API answer as a [`ChatResponse`].

use serde::Deserialize;
use serde_json::Value;

use super::PROVIDER;
use crate::message::{AssistantMessage, Citation, ContentBlock, ToolCall};
use crate::model::{ChatResponse, FinishReason};
use crate::usage::Usage;

/// A non-streamed answer (also the `message` of a stream's `message_start`).
#[derive(Debug, Deserialize)]
pub(crate) struct WireResponse {
    /// `message`, or `error` for an error envelope.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    /// The error of an error envelope.
    #[serde(default)]
    pub error: Option<Value>,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub content: Vec<Value>,
    #[serde(default)]
    pub stop_reason: Option<String>,
    #[serde(default)]
    pub usage: Option<WireUsage>,
}

/// Token counts. Anthropic's `input_tokens` excludes cache reads and writes; every field is
/// optional because `message_delta` repeats only some of them.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub(crate) struct WireUsage {
    #[serde(default)]
    pub input_tokens: Option<u64>,
    #[serde(default)]
    pub output_tokens: Option<u64>,
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
}

impl WireUsage {
    /// Fields present in `later` replace this one's (counts in a stream are cumulative).
    pub(crate) fn update(&mut self, later: WireUsage) {
        self.input_tokens = later.input_tokens.or(self.input_tokens);
        self.output_tokens = later.output_tokens.or(self.output_tokens);
        self.cache_creation_input_tokens = later
            .cache_creation_input_tokens
            .or(self.cache_creation_input_tokens);
        self.cache_read_input_tokens = later
            .cache_read_input_tokens
            .or(self.cache_read_input_tokens);
    }

    /// As [`Usage`], where input tokens include the cached and cache-written ones.
    pub(crate) fn to_usage(self) -> Usage {
        let read = self.cache_read_input_tokens.unwrap_or(0);
        let write = self.cache_creation_input_tokens.unwrap_or(0);
        Usage {
            input_tokens: self.input_tokens.unwrap_or(0) + read + write,
            output_tokens: self.output_tokens.unwrap_or(0),
            cached_input_tokens: read,
            cache_write_tokens: write,
            reasoning_tokens: 0,
            requests: 1,
        }
    }
}

/// Converts a decoded answer; `model` is used when the answer names none.
pub(crate) fn convert(wire: WireResponse, model: &str) -> ChatResponse {
    let mut message = AssistantMessage::default();
    for block in wire.content {
        push_block(&mut message, block);
    }
    ChatResponse {
        finish_reason: finish_reason(wire.stop_reason.as_deref(), &message),
        message,
        usage: wire.usage.unwrap_or_default().to_usage(),
        model: wire.model.unwrap_or_else(|| model.to_owned()),
        id: wire.id,
    }
}

/// A text block's `citations`, each kept as Anthropic sent it.
fn citations(block: &Value) -> Vec<Citation> {
    match block.get("citations") {
        Some(Value::Array(all)) => all
            .iter()
            .map(|c| Citation::new(PROVIDER, c.clone()))
            .collect(),
        _ => Vec::new(),
    }
}

/// Adds one content block of an answer: text, thinking, a tool use, or (anything else) an
/// opaque block kept for the next request.
pub(crate) fn push_block(message: &mut AssistantMessage, block: Value) {
    let str_of = |key: &str| {
        block
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match block.get("type").and_then(Value::as_str) {
        Some("text") => message.content.push(ContentBlock::Text {
            text: str_of("text"),
            citations: citations(&block),
        }),
        Some("thinking") => message.content.push(ContentBlock::Reasoning {
            text: str_of("thinking"),
            signature: block
                .get("signature")
                .and_then(Value::as_str)
                .map(str::to_owned),
        }),
        Some("tool_use") => {
            let arguments = match block.get("input") {
                None | Some(Value::Null) => "{}".to_owned(),
                Some(input) => input.to_string(),
            };
            message.tool_calls.push(ToolCall {
                id: str_of("id"),
                name: str_of("name"),
                arguments,
            });
        }
        kind => {
            tracing::debug!(
                kind = kind.unwrap_or("<none>"),
                "keeping an Anthropic content block as it came"
            );
            message.content.push(ContentBlock::Other {
                provider: PROVIDER.to_owned(),
                value: block,
            });
        }
    }
}

/// `end_turn` and `stop_sequence` are a natural stop, `max_tokens` a truncation, `tool_use`
/// a call; `refusal` a refusal. Others (`pause_turn`...) are kept by name.
pub(crate) fn finish_reason(raw: Option<&str>, message: &AssistantMessage) -> FinishReason {
    match raw {
        Some("end_turn" | "stop_sequence") => FinishReason::Stop,
        Some("max_tokens" | "model_context_window_exceeded") => FinishReason::Length,
        Some("tool_use") => FinishReason::ToolCalls,
        Some("refusal") => FinishReason::Refusal,
        Some(other) => FinishReason::Other(other.to_owned()),
        None if !message.tool_calls.is_empty() => FinishReason::ToolCalls,
        None => FinishReason::Stop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_usage_and_stop_reason() {
        let wire: WireResponse = serde_json::from_value(json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [
                {"type": "thinking", "thinking": "Two cities.", "signature": "sig=="},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 7, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 5}
        }))
        .unwrap();
        let r = convert(wire, "fallback");
        assert_eq!(r.finish_reason, FinishReason::ToolCalls);
        assert_eq!(
            r.message.tool_calls,
            vec![ToolCall::new("toolu_1", "weather", r#"{"city":"Paris"}"#)]
        );
        assert_eq!(
            r.message.content[0],
            ContentBlock::Reasoning {
                text: "Two cities.".into(),
                signature: Some("sig==".into())
            }
        );
        assert!(
            matches!(&r.message.content[1], ContentBlock::Other { provider, .. } if provider == "anthropic")
        );
        assert!(
            matches!(&r.message.content[3], ContentBlock::Other { value, .. } if value["type"] == "web_search_tool_result")
        );
        assert_eq!(r.usage.input_tokens, 115);
        assert_eq!(r.usage.cached_input_tokens, 100);
        assert_eq!(r.usage.cache_write_tokens, 5);
        assert_eq!(r.usage.output_tokens, 7);
    }

    #[test]
    fn stop_reasons() {
        let m = AssistantMessage::default();
        assert_eq!(finish_reason(Some("max_tokens"), &m), FinishReason::Length);
        assert_eq!(finish_reason(Some("stop_sequence"), &m), FinishReason::Stop);
        assert_eq!(
            finish_reason(Some("pause_turn"), &m),
            FinishReason::Other("pause_turn".into())
        );
    }
}
