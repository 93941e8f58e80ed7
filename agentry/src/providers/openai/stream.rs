//! A streamed Chat Completions answer: SSE chunks assembled into [`StreamEvent`]s.
//!
//! Deltas of several tool calls may interleave; they are kept apart by their `index`. The
//! stream is complete only once a `finish_reason` has arrived; it then ends at `data: [DONE]`
//! (or at the end of the body, for servers that do not send `[DONE]`), after the usage chunk
//! that `stream_options.include_usage` asks for. Anything else is an error, never a short
//! answer: an `error` object in the stream is [`ModelError::Stream`], a body that ends before a
//! `finish_reason` is [`ModelError::Incomplete`].

use std::borrow::Cow;
use std::collections::VecDeque;

use futures::{Stream, StreamExt};

use super::chunk::{ChunkRest, decode_chunk};
use super::errors::stream_error_message;
use super::response::{assemble, finish_reason};
use super::wire::{BorrowedStr, WireChunk, WireChunkChoice, WireDelta, WireToolCallDelta};
use crate::http::sse::SseEventRef;
use crate::http::{ApiKey, ResponseLimits};
use crate::message::ToolCall;
use crate::model::{ChatResponse, EventStream, ModelError, StreamEvent};
use crate::providers::stream::{SseDecoder, StreamPolicy, drive};
use crate::usage::Usage;

/// Decodes a Chat Completions SSE body (as byte chunks, split anywhere) into events ending
/// in [`StreamEvent::Completed`].
///
/// ```
/// use agentry::model::StreamEvent;
/// use agentry::providers::openai::decode_chat_stream;
/// use futures::{StreamExt, stream};
///
/// let body = concat!(
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n",
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n",
///     "data: [DONE]\n\n",
/// );
/// // Split the body every 7 bytes, as a network might.
/// let chunks: Vec<_> = body.as_bytes().chunks(7).map(|c| Ok(bytes::Bytes::copy_from_slice(c))).collect();
/// let events: Vec<_> = futures::executor::block_on(decode_chat_stream(stream::iter(chunks), "m").collect());
/// match events.last() {
///     Some(Ok(StreamEvent::Completed { response })) => assert_eq!(response.message.text(), "Hello"),
///     other => panic!("{other:?}"),
/// }
/// ```
pub fn decode_chat_stream<S>(body: S, model: &str) -> EventStream
where
    S: Stream<Item = Result<bytes::Bytes, ModelError>> + Send + 'static,
{
    drive(
        body.boxed(),
        Decoder::new(model.to_owned()),
        None,
        StreamPolicy::unlimited(),
    )
    .boxed()
}

/// [`decode_chat_stream`] with what [`OpenAiModel`](super::OpenAiModel) applies to its own
/// streams: the response caps of `limits` (an event, the whole stream, a tool call's
/// arguments and the number of calls, each a [`ModelError::LimitExceeded`] past its cap) and, with
/// a `key`, its redaction from every event and error before the decoder sees it. For a body
/// fetched with your own HTTP client.
///
/// ```
/// use agentry::http::{ApiKey, ResponseLimits};
/// use agentry::model::{ModelError, StreamEvent};
/// use agentry::providers::openai::decode_chat_stream_with;
/// use futures::{StreamExt, stream};
///
/// let body = concat!(
///     "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"key sk-secret-123 ok\"},\"finish_reason\":\"stop\"}]}\n\n",
///     "data: [DONE]\n\n",
/// );
/// let chunks = || stream::iter([Ok(bytes::Bytes::from_static(body.as_bytes()))]);
/// let key = ApiKey::new("sk-secret-123");
/// let decode = |limits| {
///     let events = decode_chat_stream_with(chunks(), "m", limits, Some(key.clone())).collect();
///     futures::executor::block_on(events)
/// };
/// let events: Vec<_> = decode(ResponseLimits::default());
/// match events.last() {
///     Some(Ok(StreamEvent::Completed { response })) => {
///         assert_eq!(response.message.text(), "key [redacted] ok")
///     }
///     other => panic!("{other:?}"),
/// }
/// // A stream over its cap ends in an error, not a short answer.
/// let events: Vec<_> = decode(ResponseLimits::default().max_stream_bytes(16));
/// assert!(matches!(events.last(), Some(Err(ModelError::LimitExceeded { .. }))));
/// ```
pub fn decode_chat_stream_with<S>(
    body: S,
    model: &str,
    limits: ResponseLimits,
    key: Option<ApiKey>,
) -> EventStream
where
    S: Stream<Item = Result<bytes::Bytes, ModelError>> + Send + 'static,
{
    let policy = StreamPolicy { key, limits };
    drive(body.boxed(), Decoder::new(model.to_owned()), None, policy).boxed()
}

/// Turns server-sent events into stream events.
pub(crate) struct Decoder {
    acc: Accumulator,
}

impl Decoder {
    pub(crate) fn new(model: String) -> Self {
        Decoder {
            acc: Accumulator::new(model),
        }
    }

    fn complete(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        let acc = std::mem::replace(&mut self.acc, Accumulator::new(String::new()));
        let response = acc.into_response()?;
        out.push_back(StreamEvent::Completed {
            response: Box::new(response),
        });
        Ok(())
    }
}

impl SseDecoder for Decoder {
    type Event = StreamEvent;

    fn on_event(
        &mut self,
        event: SseEventRef<'_>,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), ModelError> {
        // ASCII only: JSON allows no other whitespace around a value, and `trim` decodes
        // characters at both ends of every event to look for Unicode spaces.
        let data = event.data.trim_ascii();
        if data == "[DONE]" {
            return self.complete(out);
        }
        if event.event == "error" {
            return Err(ModelError::Stream {
                message: stream_error_message(data),
            });
        }
        if event.event != "message" {
            tracing::trace!(event = %event.event, "ignoring a server-sent event of another type");
            return Ok(());
        }
        let from = out.len();
        match decode_chunk(data, &mut self.acc, out) {
            Ok(ChunkRest {
                error: Some(error), ..
            }) => {
                // The chunk's deltas (if any) are not delivered: the error ends the stream.
                out.truncate(from);
                Err(ModelError::Stream {
                    message: stream_error_message(&error.to_string()),
                })
            }
            Ok(ChunkRest { usage, .. }) => {
                if let Some(usage) = usage {
                    self.acc.set_usage(usage);
                    out.push_back(StreamEvent::Usage { usage });
                }
                Ok(())
            }
            Err(e) => {
                out.truncate(from);
                Err(ModelError::Decode(format!(
                    "stream chunk is not valid JSON ({e}): {}",
                    crate::http::status::truncate(data, 200)
                )))
            }
        }
    }

    fn on_end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
        if self.acc.finish.is_some() {
            tracing::debug!("stream ended after finish_reason without [DONE]");
            self.complete(out)
        } else {
            Err(ModelError::Incomplete(self.acc.describe_cut()))
        }
    }
}

/// The answer assembled so far.
pub(crate) struct Accumulator {
    id: Option<String>,
    model: String,
    server_model: Option<String>,
    text: String,
    reasoning: String,
    refusal: String,
    calls: Vec<CallState>,
    finish: Option<super::wire::FinishText>,
    usage: Option<Usage>,
    chunks: usize,
}

struct CallState {
    index: Option<usize>,
    id: String,
    name: String,
    arguments: String,
    started: bool,
}

impl Accumulator {
    pub(crate) fn new(model: String) -> Self {
        Accumulator {
            id: None,
            model,
            server_model: None,
            text: String::new(),
            reasoning: String::new(),
            refusal: String::new(),
            calls: Vec::new(),
            finish: None,
            usage: None,
            chunks: 0,
        }
    }

    /// The parts of a chunk that are not a choice's: an error, the ids; returns its usage.
    pub(crate) fn on_meta(&mut self, chunk: WireChunk<'_>) -> Result<Option<Usage>, ModelError> {
        if let Some(error) = chunk.error {
            return Err(ModelError::Stream {
                message: stream_error_message(&error.to_string()),
            });
        }
        self.count_chunk();
        self.note_id(chunk.id);
        self.note_model(chunk.model);
        Ok(chunk.usage.map(|u| u.to_usage()))
    }

    /// Counts a chunk (for the message describing a cut stream).
    pub(super) fn count_chunk(&mut self) {
        self.chunks += 1;
    }

    /// The answer's id, from the first chunk that has one.
    pub(super) fn note_id(&mut self, id: Option<BorrowedStr<'_>>) {
        if self.id.is_none() {
            self.id = id
                .map(|s| s.0)
                .filter(|s| !s.is_empty())
                .map(Cow::into_owned);
        }
    }

    /// The model the server names, from the first chunk that has one.
    pub(super) fn note_model(&mut self, model: Option<BorrowedStr<'_>>) {
        if self.server_model.is_none() {
            self.server_model = model
                .map(|s| s.0)
                .filter(|s| !s.is_empty())
                .map(Cow::into_owned);
        }
    }

    /// One choice's delta.
    pub(crate) fn on_choice(&mut self, choice: WireChunkChoice, out: &mut VecDeque<StreamEvent>) {
        self.on_delta(choice.delta, out);
        if let Some(reason) = choice.finish_reason.filter(|s| !s.is_empty()) {
            self.set_finish(reason);
        }
    }

    /// A delta's texts and tool calls.
    pub(super) fn on_delta(&mut self, delta: WireDelta, out: &mut VecDeque<StreamEvent>) {
        self.on_texts(
            delta.reasoning_content.or(delta.reasoning),
            delta.content,
            delta.refusal,
            out,
        );
        for call in delta.tool_calls {
            self.on_tool_call(call, out);
        }
    }

    /// A delta's texts (the empty ones ignored), in that order.
    pub(super) fn on_texts(
        &mut self,
        reasoning: Option<String>,
        text: Option<String>,
        refusal: Option<String>,
        out: &mut VecDeque<StreamEvent>,
    ) {
        if let Some(r) = reasoning.filter(|s| !s.is_empty()) {
            self.reasoning.push_str(&r);
            out.push_back(StreamEvent::ReasoningDelta { text: r });
        }
        if let Some(t) = text.filter(|s| !s.is_empty()) {
            self.text.push_str(&t);
            out.push_back(StreamEvent::TextDelta { text: t });
        }
        if let Some(r) = refusal.filter(|s| !s.is_empty()) {
            self.refusal.push_str(&r);
            out.push_back(StreamEvent::RefusalDelta { text: r });
        }
    }

    /// The choice's finish reason.
    pub(super) fn set_finish(&mut self, reason: super::wire::FinishText) {
        self.finish = Some(reason);
    }

    /// Records the request's usage.
    pub(crate) fn set_usage(&mut self, usage: Usage) {
        self.usage = Some(usage);
    }

    /// Whether a finish reason has arrived.
    pub(crate) fn finished(&self) -> bool {
        self.finish.is_some()
    }

    /// The answer's id, model and usage, from the accumulator that saw the chunks' metadata.
    pub(crate) fn take_meta_from(&mut self, meta: &Accumulator) {
        self.id.clone_from(&meta.id);
        self.server_model.clone_from(&meta.server_model);
        self.usage = meta.usage;
    }

    pub(super) fn on_tool_call(
        &mut self,
        delta: WireToolCallDelta,
        out: &mut VecDeque<StreamEvent>,
    ) {
        let id = delta.id.filter(|s| !s.is_empty());
        let pos = match delta.index {
            Some(index) => self.calls.iter().position(|c| c.index == Some(index)),
            // Servers that omit `index`: a new id starts a new call, otherwise the last one.
            None => match &id {
                Some(id) => self.calls.iter().position(|c| &c.id == id),
                None => self.calls.len().checked_sub(1),
            },
        };
        let pos = pos.unwrap_or_else(|| {
            self.calls.push(CallState {
                index: delta.index,
                id: String::new(),
                name: String::new(),
                arguments: String::new(),
                started: false,
            });
            self.calls.len() - 1
        });
        let call = &mut self.calls[pos];
        if let Some(id) = id
            && call.id.is_empty()
        {
            call.id = id;
        }
        let (name, args) = match (delta.function, delta.custom) {
            (Some(f), _) => (f.name, f.arguments.map(|a| a.into_text())),
            // A `custom` call's input pieces are its arguments.
            (None, Some(c)) => (c.name, c.input),
            (None, None) => (None, None),
        };
        if let Some(name) = name
            && !call.started
        {
            call.name.push_str(&name);
        }
        let args = args.filter(|a| !a.is_empty());
        if let Some(args) = &args {
            call.arguments.push_str(args);
        }
        if call.started {
            if let Some(arguments) = args {
                out.push_back(StreamEvent::ToolCallDelta {
                    index: pos,
                    arguments,
                });
            }
        } else if !call.name.is_empty() {
            call.started = true;
            out.push_back(StreamEvent::ToolCallStart {
                index: pos,
                id: call.id.clone(),
                name: call.name.clone(),
            });
            if !call.arguments.is_empty() {
                out.push_back(StreamEvent::ToolCallDelta {
                    index: pos,
                    arguments: call.arguments.clone(),
                });
            }
        }
    }

    pub(crate) fn describe_cut(&self) -> String {
        format!(
            "the body ended without a finish_reason after {} chunk(s) ({} characters of text, {} tool call(s) begun)",
            self.chunks,
            self.text.chars().count(),
            self.calls.len()
        )
    }

    pub(crate) fn into_response(self) -> Result<ChatResponse, ModelError> {
        if self.finish.is_none() {
            return Err(ModelError::Incomplete(format!(
                "[DONE] arrived before a finish_reason: {}",
                self.describe_cut()
            )));
        }
        let tool_calls = self
            .calls
            .into_iter()
            .map(|c| ToolCall {
                id: c.id,
                name: c.name,
                arguments: c.arguments,
            })
            .collect();
        let some = |s: String| (!s.is_empty()).then_some(s);
        let message = assemble(
            some(self.reasoning),
            some(self.text),
            tool_calls,
            some(self.refusal),
        );
        let finish_reason = finish_reason(self.finish.as_deref(), &message);
        Ok(ChatResponse {
            message,
            usage: self.usage.unwrap_or(Usage {
                requests: 1,
                ..Usage::default()
            }),
            finish_reason,
            model: self.server_model.unwrap_or(self.model),
            id: self.id,
        })
    }
}
