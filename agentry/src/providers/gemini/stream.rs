//! `streamGenerateContent?alt=sse`: every event is a whole `GenerateContentResponse` holding
//! the next parts. Function calls arrive whole; the last event has a `finishReason` and the
//! usage. Gemini has no end marker, so the stream is complete when the body ends after a
//! `finishReason`, and [`ModelError::Incomplete`] when it ends before one. An `error` object
//! in an event is [`ModelError::Stream`].

use std::collections::VecDeque;

use serde_json::Value;

use super::errors::stream_error;
use super::response::{call_id, finish_reason, message_of, push_grounding, usage};
use crate::http::sse::SseEventRef;
use crate::model::{ChatResponse, ModelError, StreamEvent};
use crate::providers::stream::{SseDecoder, event_json};
use crate::usage::Usage;

pub(crate) struct Decoder {
    model: String,
    server_model: Option<String>,
    response_id: Option<String>,
    parts: Vec<Value>,
    calls: usize,
    finish: Option<String>,
    usage: Option<Usage>,
    events: usize,
    grounding: Option<Value>,
}

impl Decoder {
    pub(crate) fn new(model: String) -> Self {
        Decoder {
            model,
            server_model: None,
            response_id: None,
            parts: Vec::new(),
            calls: 0,
            finish: None,
            usage: None,
            events: 0,
            grounding: None,
        }
    }

    fn complete(&mut self) -> ChatResponse {
        let mut message = message_of(&self.parts, self.response_id.as_deref());
        push_grounding(&mut message, self.grounding.as_ref());
        ChatResponse {
            finish_reason: finish_reason(self.finish.as_deref(), &message),
            message,
            usage: self.usage.unwrap_or(Usage {
                requests: 1,
                ..Usage::default()
            }),
            model: self
                .server_model
                .take()
                .unwrap_or_else(|| self.model.clone()),
            id: self.response_id.take(),
        }
    }
}

impl SseDecoder for Decoder {
    type Event = StreamEvent;

    fn on_event(
        &mut self,
        event: SseEventRef<'_>,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), ModelError> {
        let Some(data) = event_json(event.data)? else {
            return Ok(());
        };
        if let Some(error) = data.get("error") {
            return Err(stream_error(error));
        }
        self.events += 1;
        if self.response_id.is_none() {
            self.response_id = data
                .get("responseId")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        if self.server_model.is_none() {
            self.server_model = data
                .get("modelVersion")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        let candidate = data.get("candidates").and_then(|c| c.get(0));
        if let Some(parts) = candidate
            .and_then(|c| c.pointer("/content/parts"))
            .and_then(Value::as_array)
        {
            for part in parts {
                if let Some(fc) = part.get("functionCall") {
                    let index = self.calls;
                    self.calls += 1;
                    out.push_back(StreamEvent::ToolCallStart {
                        index,
                        id: call_id(
                            fc.get("id").and_then(Value::as_str),
                            self.response_id.as_deref(),
                            index,
                        ),
                        name: fc
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned(),
                    });
                    let args = fc
                        .get("args")
                        .filter(|a| !a.is_null())
                        .map_or_else(|| "{}".to_owned(), Value::to_string);
                    out.push_back(StreamEvent::ToolCallDelta {
                        index,
                        arguments: args,
                    });
                } else if let Some(text) = part
                    .get("text")
                    .and_then(Value::as_str)
                    .filter(|t| !t.is_empty())
                {
                    let thought = part
                        .get("thought")
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    out.push_back(if thought {
                        StreamEvent::ReasoningDelta {
                            text: text.to_owned(),
                        }
                    } else {
                        StreamEvent::TextDelta {
                            text: text.to_owned(),
                        }
                    });
                }
                self.parts.push(part.clone());
            }
        }
        if let Some(meta) = candidate.and_then(|c| c.get("groundingMetadata")) {
            self.grounding = Some(meta.clone());
        }
        if let Some(reason) = candidate
            .and_then(|c| c.get("finishReason"))
            .and_then(Value::as_str)
        {
            self.finish = Some(reason.to_owned());
        }
        if data.get("candidates").is_none()
            && let Some(reason) = data
                .pointer("/promptFeedback/blockReason")
                .and_then(Value::as_str)
        {
            tracing::debug!(%reason, "Gemini blocked the prompt");
            self.finish = Some("SAFETY".into());
        }
        if let Some(meta) = data.get("usageMetadata") {
            let u = usage(meta);
            self.usage = Some(u);
            out.push_back(StreamEvent::Usage { usage: u });
        }
        Ok(())
    }

    fn on_end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        if self.finish.is_none() {
            let text: usize = self
                .parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .map(|t| t.chars().count())
                .sum();
            return Err(ModelError::Incomplete(format!(
                "the body ended without a finishReason after {} event(s) ({text} characters of text, {} function call(s))",
                self.events, self.calls
            )));
        }
        let response = self.complete();
        out.push_back(StreamEvent::Completed {
            response: Box::new(response),
        });
        Ok(())
    }
}
