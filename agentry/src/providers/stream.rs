//! Streamed answers: one driver feeds a provider's [`SseDecoder`] the events of an SSE body,
//! and [`events_of`] replays a whole answer for servers that answer a stream request in JSON.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::{Stream, StreamExt};

use futures::stream::BoxStream;

use super::answer_guard::CallGuard;
use crate::http::secret::redact_error_opt;
use crate::http::sse::{SseDecoder as SseParser, SseEventRef};
use crate::http::status::truncate;
use crate::http::{ApiKey, ResponseLimit, ResponseLimits};
use crate::message::ContentBlock;
use crate::model::{ChatResponse, ModelError, StreamEvent};

/// A provider's streaming decoder: fed SSE events in order, it pushes [`StreamEvent`]s (or,
/// for a multi-choice answer, its own event type) and ends the stream by pushing the event
/// that completes the answer.
pub(crate) trait SseDecoder: Send + 'static {
    /// What the decoder produces.
    type Event: DecodedEvent;

    /// One event. Returning an error ends the stream with it.
    fn on_event(
        &mut self,
        event: SseEventRef<'_>,
        out: &mut VecDeque<Self::Event>,
    ) -> Result<(), ModelError>;

    /// The body ended without the completing event having been pushed: either complete
    /// the answer (for formats without an end marker) or report the cut.
    fn on_end(&mut self, out: &mut VecDeque<Self::Event>) -> Result<(), ModelError>;
}

/// An event a decoder produces: whether it completes the answer, and the checks every event
/// goes through (tool-call caps and ids, per choice).
pub(crate) trait DecodedEvent: Send + 'static {
    /// Whether this event completes the answer.
    fn is_completed(&self) -> bool;

    /// Checks the event against the caps and fixes tool-call ids; `guards` holds one
    /// [`CallGuard`] per choice.
    fn check(
        &mut self,
        limits: &ResponseLimits,
        guards: &mut Vec<CallGuard>,
    ) -> Result<(), ModelError>;
}

impl DecodedEvent for StreamEvent {
    fn is_completed(&self) -> bool {
        matches!(self, StreamEvent::Completed { .. })
    }

    fn check(
        &mut self,
        limits: &ResponseLimits,
        guards: &mut Vec<CallGuard>,
    ) -> Result<(), ModelError> {
        guard_for(guards, 0).on_event(limits, self)
    }
}

/// The guard of choice `choice`.
pub(crate) fn guard_for(guards: &mut Vec<CallGuard>, choice: usize) -> &mut CallGuard {
    if guards.len() <= choice {
        guards.resize_with(choice + 1, CallGuard::default);
    }
    &mut guards[choice]
}

/// The JSON value an event carries (its data trimmed), or `None` for an event without data.
pub(crate) fn event_json(data: &str) -> Result<Option<serde_json::Value>, ModelError> {
    let raw = data.trim();
    if raw.is_empty() {
        return Ok(None);
    }
    serde_json::from_str(raw).map(Some).map_err(|e| {
        ModelError::Decode(format!(
            "stream event is not valid JSON ({e}): {}",
            truncate(raw, 200)
        ))
    })
}

/// What [`drive`] applies to every streamed answer besides decoding.
#[derive(Clone, Default)]
pub(crate) struct StreamPolicy {
    /// Redacted from every event (before the decoder sees it) and every error.
    pub key: Option<ApiKey>,
    /// The caps.
    pub limits: ResponseLimits,
}

impl StreamPolicy {
    /// No key, no caps (the public decoding helpers).
    pub(crate) fn unlimited() -> Self {
        StreamPolicy {
            key: None,
            limits: ResponseLimits {
                max_body_bytes: usize::MAX,
                max_event_bytes: usize::MAX,
                max_stream_bytes: usize::MAX,
                max_tool_call_bytes: usize::MAX,
                max_tool_calls: usize::MAX,
            },
        }
    }
}

/// Drives `decoder` over an SSE `body`. The stream ends after the first completing event or
/// the first error (events decoded before an error are delivered first); `guard` is dropped as
/// soon as it ends. Events are handed to the decoder as they are parsed, borrowed from the
/// parser (no allocation per event) — unless they hold the key, which is redacted first, so
/// that no provider text carrying it reaches an event, an error or a log. Every cap of
/// `policy.limits` is enforced here, for every wire format.
pub(crate) fn drive<D: SseDecoder>(
    body: BoxStream<'static, Result<Bytes, ModelError>>,
    decoder: D,
    guard: Option<Box<dyn Send>>,
    policy: StreamPolicy,
) -> Driven<D> {
    // Boxed: the state is large, and the stream is moved into the layers above it.
    Driven(Box::new(DrivenState {
        body,
        parser: SseParser::with_max_event_bytes(policy.limits.max_event_bytes),
        events: Decoded {
            decoder,
            pending: VecDeque::with_capacity(8),
            done: false,
            guards: Vec::new(),
            limits: policy.limits,
            key: policy.key,
            key_seen: false,
        },
        received: 0,
        tail: Vec::new(),
        window: Vec::new(),
        finished: false,
        error: None,
        guard,
    }))
}

/// A [`drive`]n stream. A `Stream` written out rather than an `unfold`, which would build a
/// future (and move its state) for every event.
pub(crate) struct Driven<D: SseDecoder>(Box<DrivenState<D>>);

/// The state of a [`Driven`] stream.
struct DrivenState<D: SseDecoder> {
    body: BoxStream<'static, Result<Bytes, ModelError>>,
    parser: SseParser,
    events: Decoded<D>,
    received: usize,
    /// The end of the last piece (shorter than the key), to find a key cut between pieces.
    tail: Vec<u8>,
    /// Scratch space for that search.
    window: Vec<u8>,
    finished: bool,
    error: Option<ModelError>,
    guard: Option<Box<dyn Send>>,
}

impl<D: SseDecoder> Driven<D> {
    /// Puts `item` (taken with `next`) back in front, to be delivered again.
    pub(crate) fn put_back(&mut self, item: Result<D::Event, ModelError>) {
        match item {
            Ok(event) => self.0.events.pending.push_front(event),
            Err(err) => self.0.error = Some(err),
        }
    }
}

impl<D: SseDecoder> DrivenState<D> {
    /// Looks for the key in each piece of the body (and across the joins) rather than in
    /// each event: once it has been seen, every later event is searched and redacted. (An
    /// event holds only bytes of the pieces read so far, so none can hold the key unseen.)
    fn look_for_key(&mut self, piece: &[u8]) {
        let Some(key) = &self.events.key else {
            return;
        };
        if self.events.key_seen {
            return;
        }
        self.events.key_seen =
            key.occurs_in(piece) || key.straddles(&self.tail, piece, &mut self.window);
        let keep = key.expose().len().saturating_sub(1);
        if piece.len() >= keep {
            self.tail.clear();
        } else {
            let drop = (self.tail.len() + piece.len()).saturating_sub(keep);
            self.tail.drain(..drop.min(self.tail.len()));
        }
        self.tail
            .extend_from_slice(&piece[piece.len().saturating_sub(keep)..]);
    }

    fn finish(&mut self) {
        self.finished = true;
        self.guard = None;
        self.body = futures::stream::empty().boxed();
    }
}

impl<D: SseDecoder> Stream for Driven<D> {
    type Item = Result<D::Event, ModelError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let st = &mut *self.0;
        loop {
            if let Some(ev) = st.events.pending.pop_front() {
                return Poll::Ready(Some(Ok(ev)));
            }
            if let Some(err) = st.error.take() {
                let err = redact_error_opt(st.events.key.as_ref(), err);
                return Poll::Ready(Some(Err(err)));
            }
            if st.finished {
                return Poll::Ready(None);
            }
            let step = match std::task::ready!(st.body.poll_next_unpin(cx)) {
                Some(Ok(bytes)) => {
                    st.received += bytes.len();
                    let max = st.events.limits.max_stream_bytes;
                    if st.received > max {
                        Err(ResponseLimit::StreamBytes.exceeded(max))
                    } else {
                        st.look_for_key(&bytes);
                        let events = &mut st.events;
                        st.parser.push_each(&bytes, |e| events.on_event(e))
                    }
                }
                Some(Err(err)) => Err(err),
                None => st.events.on_end(),
            };
            if let Err(err) = step {
                // Events decoded before the error (from the same read) come first. An error
                // in bytes after the completing event (in the same read) is not the answer's:
                // the stream ends with that event, as it does when those bytes come later.
                st.finish();
                if !st.events.done {
                    st.error = Some(err);
                }
                continue;
            }
            if st.events.done {
                st.finish();
            }
        }
    }
}

/// A decoder and the events it has produced but not yet delivered.
struct Decoded<D: SseDecoder> {
    decoder: D,
    pending: VecDeque<D::Event>,
    /// The completing event has been queued; later events are ignored.
    done: bool,
    guards: Vec<CallGuard>,
    limits: ResponseLimits,
    key: Option<ApiKey>,
    /// The key has been seen in the body: events are searched for it.
    key_seen: bool,
}

impl<D: SseDecoder> Decoded<D> {
    fn on_event(&mut self, event: SseEventRef<'_>) -> Result<(), ModelError> {
        if self.done {
            return Ok(());
        }
        let from = self.pending.len();
        let result = match &self.key {
            Some(key)
                if self.key_seen
                    && (key.occurs_in(event.data.as_bytes())
                        || key.occurs_in(event.event.as_bytes())) =>
            {
                let (name, data) = (key.redact(event.event), key.redact(event.data));
                self.decoder.on_event(
                    SseEventRef {
                        event: &name,
                        data: &data,
                    },
                    &mut self.pending,
                )
            }
            _ => self.decoder.on_event(event, &mut self.pending),
        };
        self.check_new(from)?;
        result
    }

    fn on_end(&mut self) -> Result<(), ModelError> {
        if self.done {
            return Ok(());
        }
        let from = self.pending.len();
        self.decoder.on_end(&mut self.pending)?;
        self.check_new(from)?;
        if self.done {
            Ok(())
        } else {
            Err(ModelError::Incomplete(
                "the body ended before the answer was complete".into(),
            ))
        }
    }

    /// Checks the events queued from `from` on; marks the stream done at the first completing
    /// one and drops what follows it.
    fn check_new(&mut self, from: usize) -> Result<(), ModelError> {
        let mut end = self.pending.len();
        for (at, event) in self.pending.range_mut(from..).enumerate() {
            if let Err(err) = event.check(&self.limits, &mut self.guards) {
                self.pending.truncate(from + at);
                return Err(err);
            }
            if event.is_completed() {
                end = from + at + 1;
                self.done = true;
                break;
            }
        }
        self.pending.truncate(end);
        Ok(())
    }
}

/// The events a stream of `answer` would have produced (for a server that answered a
/// streamed request with one JSON body).
pub(crate) fn events_of(answer: ChatResponse) -> Vec<StreamEvent> {
    let mut events = Vec::new();
    for block in &answer.message.content {
        match block {
            ContentBlock::Reasoning { text, .. } if !text.is_empty() => {
                events.push(StreamEvent::ReasoningDelta { text: text.clone() })
            }
            ContentBlock::Text { text, .. } => {
                events.push(StreamEvent::TextDelta { text: text.clone() })
            }
            _ => {}
        }
    }
    if let Some(r) = &answer.message.refusal {
        events.push(StreamEvent::RefusalDelta { text: r.clone() });
    }
    for (index, call) in answer.message.tool_calls.iter().enumerate() {
        events.push(StreamEvent::ToolCallStart {
            index,
            id: call.id.clone(),
            name: call.name.clone(),
        });
        if !call.arguments.is_empty() {
            events.push(StreamEvent::ToolCallDelta {
                index,
                arguments: call.arguments.clone(),
            });
        }
    }
    events.push(StreamEvent::Usage {
        usage: answer.usage,
    });
    events.push(StreamEvent::Completed {
        response: Box::new(answer),
    });
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-test-0123456789abcdef";

    /// Each event's data as a text delta; `[DONE]` completes.
    struct Echo;

    impl SseDecoder for Echo {
        type Event = StreamEvent;

        fn on_event(
            &mut self,
            event: SseEventRef<'_>,
            out: &mut VecDeque<StreamEvent>,
        ) -> Result<(), ModelError> {
            if event.data == "[DONE]" {
                out.push_back(StreamEvent::Completed {
                    response: Box::new(ChatResponse {
                        message: Default::default(),
                        usage: Default::default(),
                        finish_reason: crate::model::FinishReason::Stop,
                        model: String::new(),
                        id: None,
                    }),
                });
            } else {
                out.push_back(StreamEvent::TextDelta {
                    text: event.data.to_owned(),
                });
            }
            Ok(())
        }

        fn on_end(&mut self, _: &mut VecDeque<StreamEvent>) -> Result<(), ModelError> {
            Ok(())
        }
    }

    /// The texts of the events of a body read in `pieces`.
    fn texts(pieces: &[&str]) -> Vec<String> {
        let body = futures::stream::iter(
            pieces
                .iter()
                .map(|p| Ok(Bytes::copy_from_slice(p.as_bytes())))
                .collect::<Vec<_>>(),
        );
        let policy = StreamPolicy {
            key: Some(ApiKey::new(KEY)),
            limits: StreamPolicy::unlimited().limits,
        };
        let events = drive(body.boxed(), Echo, None, policy);
        futures::executor::block_on(events.collect::<Vec<_>>())
            .into_iter()
            .filter_map(|e| match e {
                Ok(StreamEvent::TextDelta { text }) => Some(text),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_key_is_redacted_wherever_the_body_is_cut() {
        let body = format!("data: a\n\ndata: x {KEY} y\n\ndata: b\n\ndata: [DONE]\n\n");
        let expected = ["a", "x [redacted] y", "b"];
        // Every place to cut the body in two, and in three.
        for i in 0..body.len() {
            let (head, rest) = body.split_at(i);
            assert_eq!(texts(&[head, rest]), expected, "cut at {i}");
            for j in 0..rest.len() {
                let (mid, tail) = rest.split_at(j);
                assert_eq!(texts(&[head, mid, tail]), expected, "cut at {i}, {}", i + j);
            }
        }
        // One byte at a time.
        let bytes: Vec<String> = body.chars().map(String::from).collect();
        let pieces: Vec<&str> = bytes.iter().map(String::as_str).collect();
        assert_eq!(texts(&pieces), expected);
    }

    #[test]
    fn a_body_without_the_key_is_passed_through() {
        assert_eq!(
            texts(&["data: sk-test-0123", "\n\ndata: [DONE]\n\n"]),
            ["sk-test-0123"]
        );
    }
}
