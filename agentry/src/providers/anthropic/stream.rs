//! A streamed Messages API answer: `message_start`, then per content block
//! `content_block_start` / `content_block_delta` / `content_block_stop`, then `message_delta`
//! (stop reason and cumulative usage) and `message_stop`.
//!
//! Deltas are `text_delta`, `input_json_delta` (a tool's arguments, several tool uses one
//! after the other), `thinking_delta` and `signature_delta`. `ping` and unknown events are
//! ignored; an `error` event is [`ModelError::Stream`]; a body that ends before
//! `message_stop` is [`ModelError::Incomplete`]. Unknown block types are kept whole.

use std::collections::VecDeque;

use serde_json::{Value, json};

use super::errors::stream_error;
use super::response::{WireResponse, WireUsage, finish_reason, push_block};
use crate::http::sse::SseEventRef;
use crate::message::AssistantMessage;
use crate::model::{ChatResponse, ModelError, StreamEvent};
use crate::providers::stream::{SseDecoder, event_json};

/// The answer assembled so far.
pub(crate) struct Decoder {
    model: String,
    id: Option<String>,
    server_model: Option<String>,
    started: bool,
    /// Blocks by their stream index, as complete JSON blocks once assembled.
    blocks: Vec<Block>,
    calls: usize,
    stop_reason: Option<String>,
    usage: WireUsage,
}

struct Block {
    index: u64,
    /// The block as started, its text fields filled by the deltas.
    value: Value,
    /// For a tool use: its position among the answer's calls and the argument JSON.
    call: Option<(usize, String)>,
    /// For any other block streamed with `input_json_delta` (a server tool use such as
    /// `server_tool_use` or `mcp_tool_use`): its input JSON, set on the block at the end.
    input: Option<String>,
}

impl Decoder {
    pub(crate) fn new(model: String) -> Self {
        Decoder {
            model,
            id: None,
            server_model: None,
            started: false,
            blocks: Vec::new(),
            calls: 0,
            stop_reason: None,
            usage: WireUsage::default(),
        }
    }

    fn block(&mut self, index: u64) -> Result<&mut Block, ModelError> {
        self.blocks
            .iter_mut()
            .find(|b| b.index == index)
            .ok_or_else(|| {
                ModelError::Decode(format!(
                    "a delta for content block {index}, which was never started"
                ))
            })
    }

    fn on_data(
        &mut self,
        data: &Value,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<bool, ModelError> {
        match data.get("type").and_then(Value::as_str).unwrap_or_default() {
            "message_start" => {
                let start: WireResponse = serde_json::from_value(data["message"].clone())
                    .map_err(|e| ModelError::Decode(format!("malformed message_start: {e}")))?;
                self.started = true;
                self.id = start.id;
                self.server_model = start.model;
                if let Some(u) = start.usage {
                    self.usage.update(u);
                }
            }
            "content_block_start" => {
                let index = data["index"].as_u64().unwrap_or(self.blocks.len() as u64);
                let mut value = data["content_block"].clone();
                let call = match value["type"].as_str() {
                    Some("tool_use") => {
                        let pos = self.calls;
                        self.calls += 1;
                        out.push_back(StreamEvent::ToolCallStart {
                            index: pos,
                            id: value["id"].as_str().unwrap_or_default().to_owned(),
                            name: value["name"].as_str().unwrap_or_default().to_owned(),
                        });
                        // `input` starts as `{}`; a non-empty one is the whole input.
                        let initial = match value.get("input") {
                            Some(Value::Object(m)) if !m.is_empty() => value["input"].to_string(),
                            _ => String::new(),
                        };
                        if !initial.is_empty() {
                            out.push_back(StreamEvent::ToolCallDelta {
                                index: pos,
                                arguments: initial.clone(),
                            });
                        }
                        Some((pos, initial))
                    }
                    Some("text") => {
                        if let Some(t) = value["text"].as_str().filter(|t| !t.is_empty()) {
                            out.push_back(StreamEvent::TextDelta { text: t.to_owned() });
                        }
                        None
                    }
                    Some("thinking") => {
                        if let Some(t) = value["thinking"].as_str().filter(|t| !t.is_empty()) {
                            out.push_back(StreamEvent::ReasoningDelta { text: t.to_owned() });
                        }
                        None
                    }
                    _ => None,
                };
                if value.get("type").is_none() {
                    value = Value::Object(Default::default());
                }
                self.blocks.push(Block {
                    index,
                    value,
                    call,
                    input: None,
                });
            }
            "content_block_delta" => {
                let index = data["index"].as_u64().unwrap_or_default();
                let delta = &data["delta"];
                let text = |key: &str| {
                    delta
                        .get(key)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                };
                let block = self.block(index)?;
                match delta["type"].as_str().unwrap_or_default() {
                    "text_delta" => {
                        let t = text("text");
                        append(&mut block.value, "text", &t);
                        out.push_back(StreamEvent::TextDelta { text: t });
                    }
                    "thinking_delta" => {
                        let t = text("thinking");
                        append(&mut block.value, "thinking", &t);
                        out.push_back(StreamEvent::ReasoningDelta { text: t });
                    }
                    "signature_delta" => append(&mut block.value, "signature", &text("signature")),
                    // One more citation of the text block, kept with it.
                    "citations_delta" => {
                        if let Value::Object(fields) = &mut block.value {
                            let all = fields.entry("citations").or_insert_with(|| json!([]));
                            if let Value::Array(all) = all {
                                all.push(delta["citation"].clone());
                            }
                        }
                    }
                    "input_json_delta" => {
                        let part = text("partial_json");
                        let Some((pos, args)) = block.call.as_mut() else {
                            // A server tool's input: kept with its block, not a client call.
                            block.input.get_or_insert_with(String::new).push_str(&part);
                            return Ok(false);
                        };
                        args.push_str(&part);
                        if !part.is_empty() {
                            out.push_back(StreamEvent::ToolCallDelta {
                                index: *pos,
                                arguments: part,
                            });
                        }
                    }
                    other => tracing::trace!(delta = other, "ignoring an unknown Anthropic delta"),
                }
            }
            "content_block_stop" => {}
            "message_delta" => {
                if let Some(reason) = data["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(reason.to_owned());
                }
                if let Some(u) = data.get("usage").filter(|u| u.is_object()) {
                    let u: WireUsage = serde_json::from_value(u.clone()).map_err(|e| {
                        ModelError::Decode(format!("malformed message_delta usage: {e}"))
                    })?;
                    self.usage.update(u);
                    out.push_back(StreamEvent::Usage {
                        usage: self.usage.to_usage(),
                    });
                }
            }
            "message_stop" => return Ok(true),
            "error" => return Err(stream_error(&data.to_string())),
            "ping" => {}
            other => tracing::trace!(event = other, "ignoring an unknown Anthropic stream event"),
        }
        Ok(false)
    }

    fn complete(&mut self) -> Result<ChatResponse, ModelError> {
        if !self.started {
            return Err(ModelError::Incomplete(
                "message_stop arrived before message_start".into(),
            ));
        }
        let mut message = AssistantMessage::default();
        self.blocks.sort_by_key(|b| b.index);
        for block in self.blocks.drain(..) {
            let mut value = block.value;
            if let Some(input) = block.input.filter(|i| !i.trim().is_empty()) {
                // As the non-streamed answer has it: the whole input as a JSON value.
                value["input"] = serde_json::from_str(&input).map_err(|e| {
                    ModelError::Decode(format!(
                        "the streamed input of a `{}` block is not valid JSON: {e}",
                        value["type"].as_str().unwrap_or("server tool")
                    ))
                })?;
            }
            if let Some((_, args)) = block.call {
                // The arguments exactly as streamed (possibly malformed: the agent reports that
                // to the model); a tool without parameters streams none.
                message.tool_calls.push(crate::message::ToolCall {
                    id: value["id"].as_str().unwrap_or_default().to_owned(),
                    name: value["name"].as_str().unwrap_or_default().to_owned(),
                    arguments: if args.trim().is_empty() {
                        "{}".to_owned()
                    } else {
                        args
                    },
                });
                continue;
            }
            push_block(&mut message, value);
        }
        Ok(ChatResponse {
            finish_reason: finish_reason(self.stop_reason.as_deref(), &message),
            message,
            usage: self.usage.to_usage(),
            model: self
                .server_model
                .take()
                .unwrap_or_else(|| self.model.clone()),
            id: self.id.take(),
        })
    }
}

fn append(value: &mut Value, key: &str, text: &str) {
    let current = value.get(key).and_then(Value::as_str).unwrap_or_default();
    let joined = format!("{current}{text}");
    value[key] = Value::String(joined);
}

impl SseDecoder for Decoder {
    type Event = StreamEvent;

    fn on_event(
        &mut self,
        event: SseEventRef<'_>,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), ModelError> {
        if event.event == "error" {
            return Err(stream_error(event.data.trim()));
        }
        let Some(data) = event_json(event.data)? else {
            return Ok(());
        };
        if self.on_data(&data, out)? {
            let response = self.complete()?;
            out.push_back(StreamEvent::Completed {
                response: Box::new(response),
            });
        }
        Ok(())
    }

    fn on_end(&mut self, _out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        let text: usize = self
            .blocks
            .iter()
            .map(|b| {
                b.value
                    .get("text")
                    .and_then(Value::as_str)
                    .map_or(0, |t| t.chars().count())
            })
            .sum();
        Err(ModelError::Incomplete(format!(
            "the body ended before message_stop ({} content block(s) begun, {text} characters of text, {} tool use(s))",
            self.blocks.len(),
            self.calls
        )))
    }
}
