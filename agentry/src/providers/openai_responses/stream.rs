//! A streamed Responses API answer: semantic events such as `response.output_item.added`,
//! `response.output_text.delta`, `response.function_call_arguments.delta` and
//! `response.reasoning_summary_text.delta`, ending with `response.completed` or
//! `response.incomplete` (which carry the whole response). There is no `[DONE]`: a body that
//! ends before one of them is [`ModelError::Incomplete`]; `error` and `response.failed`
//! events are [`ModelError::Stream`].

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value;

use super::errors::stream_error;
use super::response::{convert, usage};
use crate::http::sse::SseEventRef;
use crate::model::{ModelError, StreamEvent};
use crate::providers::stream::{SseDecoder, event_json};

pub(crate) struct Decoder {
    model: String,
    /// Function calls by output index: their position among the answer's calls.
    calls: BTreeMap<u64, usize>,
    /// Finished output items by output index, for servers whose final response omits them.
    items: BTreeMap<u64, Value>,
    text: usize,
}

impl Decoder {
    pub(crate) fn new(model: String) -> Self {
        Decoder {
            model,
            calls: BTreeMap::new(),
            items: BTreeMap::new(),
            text: 0,
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
        if event.data.trim_ascii() == "[DONE]" {
            return Ok(());
        }
        let Some(data) = event_json(event.data)? else {
            return Ok(());
        };
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event.event);
        let delta = || {
            data.get("delta")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let output_index = data
            .get("output_index")
            .and_then(Value::as_u64)
            .unwrap_or_default();
        match kind {
            "response.output_item.added" => {
                let item = &data["item"];
                if item["type"] == "function_call" {
                    let index = self.calls.len();
                    self.calls.insert(output_index, index);
                    out.push_back(StreamEvent::ToolCallStart {
                        index,
                        id: item["call_id"].as_str().unwrap_or_default().to_owned(),
                        name: item["name"].as_str().unwrap_or_default().to_owned(),
                    });
                    if let Some(args) = item["arguments"].as_str().filter(|a| !a.is_empty()) {
                        out.push_back(StreamEvent::ToolCallDelta {
                            index,
                            arguments: args.to_owned(),
                        });
                    }
                }
            }
            "response.output_text.delta" => {
                let text = delta();
                self.text += text.chars().count();
                out.push_back(StreamEvent::TextDelta { text });
            }
            "response.refusal.delta" => out.push_back(StreamEvent::RefusalDelta { text: delta() }),
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                out.push_back(StreamEvent::ReasoningDelta { text: delta() })
            }
            "response.function_call_arguments.delta" => {
                let Some(&index) = self.calls.get(&output_index) else {
                    return Err(ModelError::Decode(format!(
                        "arguments for output item {output_index}, which is not a function call"
                    )));
                };
                out.push_back(StreamEvent::ToolCallDelta {
                    index,
                    arguments: delta(),
                });
            }
            "response.output_item.done" => {
                self.items.insert(output_index, data["item"].clone());
            }
            "response.completed" | "response.incomplete" => {
                let mut response = data.get("response").cloned().unwrap_or(Value::Null);
                if !(response.is_object() || response.is_null()) {
                    return Err(ModelError::Decode(format!(
                        "the `response` of a `{kind}` event is not an object"
                    )));
                }
                let empty = response
                    .get("output")
                    .and_then(Value::as_array)
                    .is_none_or(Vec::is_empty);
                if empty && !self.items.is_empty() {
                    response["output"] = Value::Array(self.items.values().cloned().collect());
                }
                if let Some(u) = response.get("usage").filter(|u| u.is_object()) {
                    out.push_back(StreamEvent::Usage { usage: usage(u) });
                }
                let response = convert(&response, &self.model)?;
                out.push_back(StreamEvent::Completed {
                    response: Box::new(response),
                });
            }
            "response.failed" => {
                return Err(stream_error(
                    data.pointer("/response/error").unwrap_or(&Value::Null),
                ));
            }
            "error" => {
                return Err(stream_error(
                    data.get("error").filter(|e| e.is_object()).unwrap_or(&data),
                ));
            }
            other => tracing::trace!(event = other, "ignoring a Responses API stream event"),
        }
        Ok(())
    }

    fn on_end(&mut self, _out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        Err(ModelError::Incomplete(format!(
            "the body ended before response.completed ({} characters of text, {} function call(s) begun)",
            self.text,
            self.calls.len()
        )))
    }
}
