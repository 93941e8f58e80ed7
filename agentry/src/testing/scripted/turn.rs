//! [`Turn`]: one scripted answer of a [`ScriptedModel`](super::ScriptedModel) — a whole
//! response, a failure, or stream events as given — and the responses and calls it builds.

use serde::Serialize;

use super::events::{Assembler, split_into_events};
use crate::message::{AssistantMessage, ContentBlock, ToolCall};
use crate::model::{ChatResponse, FinishReason, ModelError, StreamEvent};
use crate::usage::Usage;

/// One scripted answer of a [`ScriptedModel`](super::ScriptedModel) (a test double).
#[derive(Clone, Debug)]
pub struct Turn {
    kind: TurnKind,
}

#[derive(Clone, Debug)]
enum TurnKind {
    /// A whole answer; streamed by splitting it into deltas.
    Respond(ChatResponse),
    /// A failed request.
    Fail(ModelError),
    /// Streamed events exactly as given; `invoke` assembles them.
    Chunks(Vec<Result<StreamEvent, ModelError>>),
}

impl Turn {
    /// An answer with this text and no tool calls.
    pub fn text(text: impl Into<String>) -> Self {
        Turn::message(AssistantMessage {
            content: vec![ContentBlock::text(text)],
            ..AssistantMessage::default()
        })
    }

    /// An answer that calls one tool with `arguments` (serialized to JSON; pass a `&str` of raw
    /// JSON through [`Turn::tool_calls`] to script malformed arguments). The call id is
    /// `call_<name>`.
    pub fn tool_call(name: &str, arguments: impl Serialize) -> Self {
        Turn::tool_calls([scripted_call(name, arguments)])
    }

    /// An answer that calls these tools, in this order.
    pub fn tool_calls(calls: impl IntoIterator<Item = ToolCall>) -> Self {
        Turn::message(AssistantMessage {
            tool_calls: calls.into_iter().collect(),
            ..AssistantMessage::default()
        })
    }

    /// An answer that refuses, with this explanation.
    pub fn refusal(text: impl Into<String>) -> Self {
        Turn::message(AssistantMessage {
            refusal: Some(text.into()),
            ..AssistantMessage::default()
        })
    }

    /// An answer with this message. The finish reason is `ToolCalls` when it calls tools,
    /// `Refusal` when it refuses, `Stop` otherwise; usage is one request and no tokens.
    pub fn message(message: AssistantMessage) -> Self {
        Turn::response(response_for(message))
    }

    /// This exact response (an empty `model` is filled with the scripted model's name).
    pub fn response(response: ChatResponse) -> Self {
        Turn {
            kind: TurnKind::Respond(response),
        }
    }

    /// A request that fails with `error`.
    pub fn error(error: ModelError) -> Self {
        Turn {
            kind: TurnKind::Fail(error),
        }
    }

    /// A streamed answer made of exactly these events. `stream` yields them as given, then
    /// [`StreamEvent::Completed`] with the assembled answer unless the list already ends in
    /// one or contains an error; `invoke` assembles them into one response (or fails with
    /// the first error).
    pub fn chunks(events: impl IntoIterator<Item = Result<StreamEvent, ModelError>>) -> Self {
        Turn {
            kind: TurnKind::Chunks(events.into_iter().collect()),
        }
    }

    /// Sets the usage this turn reports (`requests` is forced to 1). No effect on error turns.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        let usage = Usage {
            requests: 1,
            ..usage
        };
        match &mut self.kind {
            TurnKind::Respond(r) => r.usage = usage,
            TurnKind::Chunks(events) => {
                events.retain(|e| !matches!(e, Ok(StreamEvent::Usage { .. })));
                let at = events
                    .iter()
                    .position(|e| matches!(e, Ok(StreamEvent::Completed { .. }) | Err(_)))
                    .unwrap_or(events.len());
                events.insert(at, Ok(StreamEvent::Usage { usage }));
                for event in events.iter_mut() {
                    if let Ok(StreamEvent::Completed { response }) = event {
                        response.usage = usage;
                    }
                }
            }
            TurnKind::Fail(_) => {}
        }
        self
    }

    /// Adds a reasoning block before the answer. No effect on error or chunk turns.
    pub fn with_reasoning(mut self, text: impl Into<String>) -> Self {
        if let TurnKind::Respond(r) = &mut self.kind {
            r.message.content.insert(
                0,
                ContentBlock::Reasoning {
                    text: text.into(),
                    signature: None,
                },
            );
        }
        self
    }

    /// Adds text to the answer (e.g. a preamble before tool calls). No effect on error or
    /// chunk turns.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        if let TurnKind::Respond(r) = &mut self.kind {
            r.message.content.push(ContentBlock::text(text));
        }
        self
    }

    pub(crate) fn into_response(self, model: &str) -> Result<ChatResponse, ModelError> {
        match self.kind {
            TurnKind::Respond(mut r) => {
                if r.model.is_empty() {
                    r.model = model.to_string();
                }
                Ok(r)
            }
            TurnKind::Fail(e) => Err(e),
            TurnKind::Chunks(events) => {
                let mut assembler = Assembler::new(model);
                for event in events {
                    match event? {
                        StreamEvent::Completed { response } => return Ok(*response),
                        other => assembler.push(&other),
                    }
                }
                Ok(assembler.finish())
            }
        }
    }

    pub(crate) fn into_events(self, model: &str) -> Vec<Result<StreamEvent, ModelError>> {
        match self.kind {
            TurnKind::Fail(e) => vec![Err(e)],
            TurnKind::Respond(mut r) => {
                if r.model.is_empty() {
                    r.model = model.to_string();
                }
                split_into_events(r)
            }
            TurnKind::Chunks(mut events) => {
                let closed = events
                    .iter()
                    .any(|e| matches!(e, Ok(StreamEvent::Completed { .. }) | Err(_)));
                if !closed {
                    let mut assembler = Assembler::new(model);
                    for event in events.iter().flatten() {
                        assembler.push(event);
                    }
                    events.push(Ok(StreamEvent::Completed {
                        response: Box::new(assembler.finish()),
                    }));
                }
                events
            }
        }
    }
}

/// A one-request, zero-token response for `message`, with the finish reason it implies:
/// `ToolCalls` when it calls tools, `Refusal` when it refuses, `Stop` otherwise.
pub(crate) fn response_for(message: AssistantMessage) -> ChatResponse {
    let finish_reason = if !message.tool_calls.is_empty() {
        FinishReason::ToolCalls
    } else if message.refusal.is_some() {
        FinishReason::Refusal
    } else {
        FinishReason::Stop
    };
    ChatResponse {
        message,
        usage: Usage {
            requests: 1,
            ..Usage::default()
        },
        finish_reason,
        model: String::new(),
        id: None,
    }
}

/// A call with id `call_<name>` and `arguments` serialized to JSON.
pub(crate) fn scripted_call(name: &str, arguments: impl Serialize) -> ToolCall {
    let arguments = serde_json::to_string(&arguments)
        .unwrap_or_else(|e| format!("<unserializable arguments: {e}>"));
    ToolCall::new(format!("call_{name}"), name, arguments)
}
