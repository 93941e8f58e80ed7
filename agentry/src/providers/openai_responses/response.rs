//! A Responses API `response` object as a [`ChatResponse`].

use serde_json::Value;

use super::PROVIDER;
use super::errors::stream_error;
use crate::message::{AssistantMessage, ContentBlock, ToolCall};
use crate::model::{ChatResponse, FinishReason, ModelError};
use crate::usage::Usage;

pub(crate) fn usage(u: &Value) -> Usage {
    let n = |p: &str| u.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: n("/input_tokens"),
        output_tokens: n("/output_tokens"),
        cached_input_tokens: n("/input_tokens_details/cached_tokens"),
        cache_write_tokens: n("/input_tokens_details/cache_write_tokens"),
        reasoning_tokens: n("/output_tokens_details/reasoning_tokens"),
        requests: 1,
    }
}

/// Adds one output item: a reasoning item (kept whole as the block's signature), a message,
/// a function call, or (anything else, e.g. a built-in tool call) an opaque block.
pub(crate) fn push_item(m: &mut AssistantMessage, item: &Value) {
    let s = |v: &Value, key: &str| {
        v.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match item.get("type").and_then(Value::as_str) {
        Some("reasoning") => {
            let summary: Vec<&str> = item
                .get("summary")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            m.content.push(ContentBlock::Reasoning {
                text: summary.join("\n\n"),
                signature: Some(item.to_string()),
            });
        }
        Some("message") => {
            for part in item
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                match part.get("type").and_then(Value::as_str) {
                    Some("output_text") => match m.content.last_mut() {
                        Some(ContentBlock::Text { text, .. }) => text.push_str(&s(part, "text")),
                        _ => m.content.push(ContentBlock::Text {
                            citations: Vec::new(),
                            text: s(part, "text"),
                        }),
                    },
                    Some("refusal") => m
                        .refusal
                        .get_or_insert_with(String::new)
                        .push_str(&s(part, "refusal")),
                    _ => m.content.push(ContentBlock::Other {
                        provider: PROVIDER.into(),
                        value: part.clone(),
                    }),
                }
            }
        }
        Some("function_call") => m.tool_calls.push(ToolCall {
            id: s(item, "call_id"),
            name: s(item, "name"),
            arguments: s(item, "arguments"),
        }),
        _ => m.content.push(ContentBlock::Other {
            provider: PROVIDER.into(),
            value: item.clone(),
        }),
    }
}

/// `completed` is a stop (or tool calls); `incomplete` says why: `max_output_tokens` is
/// [`FinishReason::Length`], `content_filter` is `ContentFilter`.
pub(crate) fn finish_reason(response: &Value, message: &AssistantMessage) -> FinishReason {
    let status = response.get("status").and_then(Value::as_str);
    let reason = response
        .pointer("/incomplete_details/reason")
        .and_then(Value::as_str);
    match (status, reason) {
        (Some("incomplete"), Some("max_output_tokens")) => FinishReason::Length,
        (Some("incomplete"), Some("content_filter")) => FinishReason::ContentFilter,
        (Some("incomplete"), other) => {
            FinishReason::Other(other.unwrap_or("incomplete").to_owned())
        }
        _ if message.refusal.is_some() => FinishReason::Refusal,
        _ if !message.tool_calls.is_empty() => FinishReason::ToolCalls,
        _ => FinishReason::Stop,
    }
}

/// Converts a whole `response` object; a failed response is an error.
pub(crate) fn convert(response: &Value, model: &str) -> Result<ChatResponse, ModelError> {
    if response.get("status").and_then(Value::as_str) == Some("failed") {
        return Err(stream_error(response.get("error").unwrap_or(&Value::Null)));
    }
    let Some(output) = response.get("output").and_then(Value::as_array) else {
        return Err(ModelError::Decode("the response has no output".into()));
    };
    let mut message = AssistantMessage::default();
    for item in output {
        push_item(&mut message, item);
    }
    Ok(ChatResponse {
        finish_reason: finish_reason(response, &message),
        message,
        usage: response.get("usage").map(usage).unwrap_or(Usage {
            requests: 1,
            ..Usage::default()
        }),
        model: response
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or(model)
            .to_owned(),
        id: response
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn items_usage_and_incomplete() {
        let r = json!({
            "id": "resp_1", "model": "o4-mini", "status": "incomplete", "incomplete_details": { "reason": "max_output_tokens" },
            "output": [
                { "type": "reasoning", "id": "rs_1", "summary": [{ "type": "summary_text", "text": "Think." }], "encrypted_content": "gAAA" },
                { "type": "message", "id": "msg_1", "role": "assistant", "content": [{ "type": "output_text", "text": "Partial", "annotations": [] }] },
                { "type": "web_search_call", "id": "ws_1", "status": "completed" }
            ],
            "usage": { "input_tokens": 90, "input_tokens_details": { "cached_tokens": 64, "cache_write_tokens": 12 }, "output_tokens": 30, "output_tokens_details": { "reasoning_tokens": 20 } }
        });
        let c = convert(&r, "m").unwrap();
        assert_eq!(c.finish_reason, FinishReason::Length);
        assert!(
            matches!(&c.message.content[0], ContentBlock::Reasoning { text, signature: Some(s) } if text == "Think." && s.contains("gAAA"))
        );
        assert_eq!(c.message.text(), "Partial");
        assert!(
            matches!(&c.message.content[2], ContentBlock::Other { value, .. } if value["type"] == "web_search_call")
        );
        assert_eq!(
            c.usage,
            Usage {
                input_tokens: 90,
                cached_input_tokens: 64,
                cache_write_tokens: 12,
                output_tokens: 30,
                reasoning_tokens: 20,
                requests: 1,
            }
        );
        let failed =
            json!({ "status": "failed", "error": { "code": "server_error", "message": "boom" } });
        assert!(matches!(
            convert(&failed, "m"),
            Err(ModelError::Stream { .. })
        ));
    }
}
