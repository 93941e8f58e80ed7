//! A `generateContent` answer as a [`ChatResponse`].

use serde_json::{Value, json};

use super::{PROVIDER, SYNTHETIC_ID_PREFIX};
use crate::message::{AssistantMessage, ContentBlock, ToolCall};
use crate::model::{ChatResponse, FinishReason, ModelError};
use crate::usage::Usage;

/// `usageMetadata`: prompt tokens include cached ones; thoughts are counted apart from the
/// candidates, so output tokens are their sum.
pub(crate) fn usage(meta: &Value) -> Usage {
    let n = |key: &str| meta.get(key).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: n("promptTokenCount") + n("toolUsePromptTokenCount"),
        output_tokens: n("candidatesTokenCount") + n("thoughtsTokenCount"),
        cached_input_tokens: n("cachedContentTokenCount"),
        cache_write_tokens: 0,
        reasoning_tokens: n("thoughtsTokenCount"),
        requests: 1,
    }
}

/// The `type` of the block that keeps a candidate's `groundingMetadata` (the results of the
/// hosted Google Search tool): a `gemini` [`ContentBlock::Other`], never sent back.
pub(crate) const GROUNDING_TYPE: &str = "grounding_metadata";

/// Adds the candidate's grounding metadata, if any, as a provider block.
pub(crate) fn push_grounding(message: &mut AssistantMessage, metadata: Option<&Value>) {
    if let Some(meta) = metadata.filter(|m| !m.is_null()) {
        message.content.push(ContentBlock::Other {
            provider: PROVIDER.into(),
            value: json!({ "type": GROUNDING_TYPE, "grounding_metadata": meta }),
        });
    }
}

/// The `type` of the `gemini` [`ContentBlock::Other`] that marks where a function call without
/// a thought signature stood among the parts (a call with one is marked by its
/// `function_call_signature` block). Both name the call by `tool_call_id`.
pub(crate) const CALL_POSITION_TYPE: &str = "function_call_position";

/// The id of the `k`-th function call of an answer without ids: stable for one answer.
pub(crate) fn call_id(given: Option<&str>, response_id: Option<&str>, k: usize) -> String {
    match (given.filter(|s| !s.is_empty()), response_id) {
        (Some(id), _) => id.to_owned(),
        (None, Some(r)) => format!("{SYNTHETIC_ID_PREFIX}{r}_{k}"),
        (None, None) => format!("{SYNTHETIC_ID_PREFIX}{k}"),
    }
}

/// Builds the message from parts in order; consecutive text parts of one kind are joined. Each
/// function call goes to `tool_calls` and leaves a marker block in `content` at its place, so
/// text, code execution and calls keep their order.
pub(crate) fn message_of(parts: &[Value], response_id: Option<&str>) -> AssistantMessage {
    let mut m = AssistantMessage::default();
    for part in parts {
        let signature = part
            .get("thoughtSignature")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(fc) = part.get("functionCall") {
            let id = call_id(
                fc.get("id").and_then(Value::as_str),
                response_id,
                m.tool_calls.len(),
            );
            // Where the call stands among the parts (and its signature, if any): the history
            // sends it back at the same place.
            let value = match signature {
                Some(sig) => {
                    json!({ "type": "function_call_signature", "tool_call_id": id, "thought_signature": sig })
                }
                None => json!({ "type": CALL_POSITION_TYPE, "tool_call_id": id }),
            };
            m.content.push(ContentBlock::Other {
                provider: PROVIDER.into(),
                value,
            });
            m.tool_calls.push(ToolCall {
                id,
                name: fc
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                arguments: fc
                    .get("args")
                    .filter(|a| !a.is_null())
                    .map_or_else(|| "{}".to_owned(), Value::to_string),
            });
        } else if let Some(text) = part.get("text").and_then(Value::as_str) {
            let thought = part
                .get("thought")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            match (thought, m.content.last_mut()) {
                (
                    true,
                    Some(ContentBlock::Reasoning {
                        text: t,
                        signature: s,
                    }),
                ) if !t.is_empty() => {
                    t.push_str(text);
                    if signature.is_some() {
                        *s = signature;
                    }
                }
                (true, _) => m.content.push(ContentBlock::Reasoning {
                    text: text.to_owned(),
                    signature,
                }),
                (false, last) => {
                    if let Some(sig) = signature {
                        m.content.push(ContentBlock::Reasoning {
                            text: String::new(),
                            signature: Some(sig),
                        });
                        m.content.push(ContentBlock::Text {
                            citations: Vec::new(),
                            text: text.to_owned(),
                        });
                    } else if let Some(ContentBlock::Text { text: t, .. }) = last {
                        t.push_str(text);
                    } else {
                        m.content.push(ContentBlock::Text {
                            citations: Vec::new(),
                            text: text.to_owned(),
                        });
                    }
                }
            }
        } else {
            m.content.push(ContentBlock::Other {
                provider: PROVIDER.into(),
                value: part.clone(),
            });
        }
    }
    m
}

/// The typed finish reason. Gemini reports `STOP` after function calls too.
pub(crate) fn finish_reason(raw: Option<&str>, message: &AssistantMessage) -> FinishReason {
    match raw {
        Some("STOP") | None if !message.tool_calls.is_empty() => FinishReason::ToolCalls,
        Some("STOP") | None => FinishReason::Stop,
        Some("MAX_TOKENS") => FinishReason::Length,
        Some(
            "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY",
        ) => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    }
}

/// Converts a whole answer; `model` is used when the answer names none.
pub(crate) fn convert(wire: &Value, model: &str) -> Result<ChatResponse, ModelError> {
    let response_id = wire.get("responseId").and_then(Value::as_str);
    let candidate = wire.get("candidates").and_then(|c| c.get(0));
    let usage = wire.get("usageMetadata").map(usage).unwrap_or(Usage {
        requests: 1,
        ..Usage::default()
    });
    let model_name = wire
        .get("modelVersion")
        .and_then(Value::as_str)
        .unwrap_or(model)
        .to_owned();
    let Some(candidate) = candidate else {
        // The prompt itself was blocked: a typed outcome, not an empty answer.
        if let Some(reason) = wire
            .pointer("/promptFeedback/blockReason")
            .and_then(Value::as_str)
        {
            tracing::debug!(%reason, "Gemini blocked the prompt");
            return Ok(ChatResponse {
                message: AssistantMessage::default(),
                usage,
                finish_reason: FinishReason::ContentFilter,
                model: model_name,
                id: response_id.map(str::to_owned),
            });
        }
        return Err(ModelError::Decode("the answer has no candidates".into()));
    };
    let parts = candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut message = message_of(parts, response_id);
    push_grounding(&mut message, candidate.get("groundingMetadata"));
    Ok(ChatResponse {
        finish_reason: finish_reason(
            candidate.get("finishReason").and_then(Value::as_str),
            &message,
        ),
        message,
        usage,
        model: model_name,
        id: response_id.map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_usage_and_finish() {
        let wire = json!({
            "responseId": "r1", "modelVersion": "gemini-2.5-flash",
            "candidates": [{ "content": { "role": "model", "parts": [
                { "text": "Thinking ", "thought": true },
                { "text": "hard.", "thought": true, "thoughtSignature": "c2ln" },
                { "functionCall": { "name": "get_weather", "args": { "city": "Paris" } }, "thoughtSignature": "c2lnMg==" },
                { "functionCall": { "name": "local_time", "args": { "city": "Rome" } } }
            ]}, "finishReason": "STOP" }],
            "usageMetadata": { "promptTokenCount": 100, "candidatesTokenCount": 20, "thoughtsTokenCount": 30, "cachedContentTokenCount": 60 }
        });
        let r = convert(&wire, "m").unwrap();
        assert_eq!(r.finish_reason, FinishReason::ToolCalls);
        assert_eq!(
            r.message.content[0],
            ContentBlock::Reasoning {
                text: "Thinking hard.".into(),
                signature: Some("c2ln".into())
            }
        );
        assert_eq!(r.message.tool_calls[0].id, "gemini_call_r1_0");
        assert_eq!(r.message.tool_calls[1].id, "gemini_call_r1_1");
        assert!(
            matches!(&r.message.content[1], ContentBlock::Other { value, .. } if value["tool_call_id"] == "gemini_call_r1_0")
        );
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: 100,
                output_tokens: 50,
                cached_input_tokens: 60,
                reasoning_tokens: 30,
                requests: 1,
                ..Usage::default()
            }
        );
    }

    #[test]
    fn safety_and_blocked_prompts_are_content_filter() {
        let m = AssistantMessage::default();
        assert_eq!(
            finish_reason(Some("SAFETY"), &m),
            FinishReason::ContentFilter
        );
        assert_eq!(finish_reason(Some("MAX_TOKENS"), &m), FinishReason::Length);
        let blocked = json!({ "promptFeedback": { "blockReason": "SAFETY" } });
        assert_eq!(
            convert(&blocked, "m").unwrap().finish_reason,
            FinishReason::ContentFilter
        );
        assert!(convert(&json!({}), "m").is_err());
    }
}
