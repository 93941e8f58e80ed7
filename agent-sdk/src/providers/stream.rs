//! Streamed answers: one driver feeds a provider's [`SseDecoder`] the events of an SSE body,
//! and [`events_of`] replays a whole answer for servers that answer a stream request in JSON.

use std::collections::VecDeque;

use bytes::Bytes;
use futures::{Stream, StreamExt};

use crate::http::sse::{SseDecoder as SseParser, SseEventRef};
use crate::http::status::truncate;
use crate::message::ContentBlock;
use crate::model::{ChatResponse, EventStream, ModelError, StreamEvent};

/// A provider's streaming decoder: fed SSE events in order, it pushes [`StreamEvent`]s and
/// ends the stream by pushing [`StreamEvent::Completed`].
pub(crate) trait SseDecoder: Send + 'static {
    /// One event. Returning an error ends the stream with it.
    fn on_event(
        &mut self,
        event: SseEventRef<'_>,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), ModelError>;

    /// The body ended without [`StreamEvent::Completed`] having been pushed: either complete
    /// the answer (for formats without an end marker) or report the cut.
    fn on_end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError>;
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

/// Drives `decoder` over an SSE `body`. The stream ends after the first `Completed` event or
/// the first error (events decoded before an error are delivered first); `guard` is dropped as
/// soon as it ends. Events are handed to the decoder as they are parsed, borrowed from the
/// parser (no allocation per event).
pub(crate) fn drive<S, D>(body: S, decoder: D, guard: Option<Box<dyn Send>>) -> EventStream
where
    S: Stream<Item = Result<Bytes, ModelError>> + Send + 'static,
    D: SseDecoder,
{
    let state = Driven {
        body: body.boxed(),
        parser: SseParser::new(),
        events: Decoded {
            decoder,
            pending: VecDeque::new(),
            done: false,
        },
        finished: false,
        error: None,
        guard,
    };
    futures::stream::unfold(state, |mut st| async move {
        loop {
            if let Some(ev) = st.events.pending.pop_front() {
                return Some((Ok(ev), st));
            }
            if let Some(err) = st.error.take() {
                return Some((Err(err), st));
            }
            if st.finished {
                return None;
            }
            let step = match st.body.next().await {
                Some(Ok(bytes)) => {
                    let events = &mut st.events;
                    st.parser.push_each(&bytes, |e| events.on_event(e))
                }
                Some(Err(err)) => Err(err),
                None => st.events.on_end(),
            };
            if let Err(err) = step {
                // Events decoded before the error (from the same read) come first.
                st.finish();
                st.error = Some(err);
                continue;
            }
            if st.events.done {
                st.finish();
            }
        }
    })
    .boxed()
}

/// The state of a [`drive`]n stream.
struct Driven<D> {
    body: futures::stream::BoxStream<'static, Result<Bytes, ModelError>>,
    parser: SseParser,
    events: Decoded<D>,
    finished: bool,
    error: Option<ModelError>,
    guard: Option<Box<dyn Send>>,
}

impl<D> Driven<D> {
    fn finish(&mut self) {
        self.finished = true;
        self.guard = None;
        self.body = futures::stream::empty().boxed();
    }
}

/// A decoder and the events it has produced but not yet delivered.
struct Decoded<D> {
    decoder: D,
    pending: VecDeque<StreamEvent>,
    /// `Completed` has been queued; later events are ignored.
    done: bool,
}

impl<D: SseDecoder> Decoded<D> {
    fn on_event(&mut self, event: SseEventRef<'_>) -> Result<(), ModelError> {
        if self.done {
            return Ok(());
        }
        let from = self.pending.len();
        let result = self.decoder.on_event(event, &mut self.pending);
        self.check_done(from);
        result
    }

    fn on_end(&mut self) -> Result<(), ModelError> {
        if self.done {
            return Ok(());
        }
        let from = self.pending.len();
        self.decoder.on_end(&mut self.pending)?;
        self.check_done(from);
        if self.done {
            Ok(())
        } else {
            Err(ModelError::Incomplete(
                "the body ended before the answer was complete".into(),
            ))
        }
    }

    /// Marks the stream done at the first `Completed` among the events queued from `from` on,
    /// and drops what follows it.
    fn check_done(&mut self, from: usize) {
        if let Some(at) = self
            .pending
            .range(from..)
            .position(|e| matches!(e, StreamEvent::Completed { .. }))
        {
            self.pending.truncate(from + at + 1);
            self.done = true;
        }
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
            ContentBlock::Text { text } => {
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
    events.push(StreamEvent::Completed { response: answer });
    events
}
