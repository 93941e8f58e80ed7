//! A run streamed to a client: the run's future is polled by the response body itself, so
//! when the client goes away (the body is dropped) the run is dropped with it, and the
//! thread is then marked cancelled ([`Thread::cancel`](crate::agent::Thread::cancel)).

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Bytes;
use futures::future::BoxFuture;
use futures::{Stream, StreamExt};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;

use super::Inner;
use super::error::ServeError;
use super::event::{Encoder, Event};
use super::request::RunRequest;
use super::threads::{Owners, RunSlot};
use crate::agent::{AgentEvent, Outcome, PendingCall, ThreadError, ThreadState, Toolset};
use crate::message::Message;
use crate::middleware::Decision;
use crate::output::OutputSpec;
use crate::tool::CustomEvent;

/// The body of a streamed run: drives the run while the client reads.
pub(crate) struct RunBody {
    run: Option<BoxFuture<'static, ()>>,
    frames: mpsc::Receiver<Bytes>,
    /// An SSE comment is sent when nothing else was for this long: a server learns that its
    /// client went away only when a write fails.
    keep_alive: tokio::time::Interval,
}

/// The SSE comment sent to keep a quiet stream alive (every SSE parser skips it).
const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

impl Stream for RunBody {
    type Item = Result<Bytes, std::convert::Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some(run) = this.run.as_mut()
            && run.as_mut().poll(cx).is_ready()
        {
            this.run = None;
        }
        // The run ends by dropping its sender: then the rest is read and the stream ends.
        match this.frames.poll_recv(cx) {
            Poll::Ready(frame) => {
                this.keep_alive.reset();
                Poll::Ready(frame.map(Ok))
            }
            Poll::Pending => match this.keep_alive.poll_tick(cx) {
                Poll::Ready(_) => Poll::Ready(Some(Ok(Bytes::from_static(KEEP_ALIVE)))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

/// Frames `value` as one server-sent event.
fn sse(value: &Value) -> Bytes {
    let mut line = Vec::with_capacity(128);
    line.extend_from_slice(b"data: ");
    // A `Value` always serializes.
    serde_json::to_writer(&mut line, value).unwrap_or_default();
    line.extend_from_slice(b"\n\n");
    Bytes::from(line)
}

/// Where a run sends its encoded messages: the response body.
#[derive(Clone)]
pub(crate) struct Frames {
    tx: mpsc::Sender<Bytes>,
}

impl Frames {
    /// Sends the messages of `out` (leaving it empty); `Err` when the client went away.
    pub(crate) async fn send(&self, out: &mut Vec<Value>) -> Result<(), ()> {
        let frames: Vec<Bytes> = out.drain(..).map(|v| sse(&v)).collect();
        for frame in frames {
            self.tx.send(frame).await.map_err(|_| ())?;
        }
        Ok(())
    }

    /// Sends `end`, the line the protocol ends with, if it has one.
    pub(crate) async fn end(&self, end: Option<&'static str>) {
        if let Some(end) = end {
            let _ = self.tx.send(Bytes::from(format!("data: {end}\n\n"))).await;
        }
    }
}

/// The body driving the run `run` makes, given where to send its messages; an SSE comment
/// goes out after `keep_alive` without a message.
pub(crate) fn body<F, R>(keep_alive: std::time::Duration, run: F) -> RunBody
where
    F: FnOnce(Frames) -> R,
    R: Future<Output = ()> + Send + 'static,
{
    let (tx, frames) = mpsc::channel::<Bytes>(32);
    let run = run(Frames { tx });
    let mut keep_alive =
        tokio::time::interval_at(tokio::time::Instant::now() + keep_alive, keep_alive);
    keep_alive.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    RunBody {
        run: Some(Box::pin(run)),
        frames,
        keep_alive,
    }
}

/// Encodes the events every served run streams alike, and gives the others back.
pub(crate) fn encode<E: Encoder, T, S, X: Serialize>(
    encoder: &mut E,
    event: AgentEvent<T, S, X>,
    out: &mut Vec<Value>,
) -> Option<AgentEvent<T, S, X>> {
    match event {
        AgentEvent::TurnStart { turn } => encoder.event(Event::Turn(turn), out),
        AgentEvent::TextDelta { text } | AgentEvent::RefusalDelta { text } => {
            encoder.event(Event::Text(&text), out)
        }
        AgentEvent::ReasoningDelta { text } => encoder.event(Event::Reasoning(&text), out),
        AgentEvent::ToolCallStart { index, id, name } => encoder.event(
            Event::CallStart {
                index,
                id: &id,
                name: &name,
            },
            out,
        ),
        AgentEvent::ToolCallDelta { index, arguments } => encoder.event(
            Event::CallArgs {
                index,
                delta: &arguments,
            },
            out,
        ),
        AgentEvent::Response { message, .. } => encoder.event(Event::Answer(&message), out),
        AgentEvent::ToolResult(step) => encoder.event(Event::Result(&step), out),
        AgentEvent::Custom(custom) => encoder.event(Event::Custom(&custom_json(custom)), out),
        other => return Some(other),
    }
    None
}

/// Marks the thread cancelled when the run is dropped before it ended.
pub(crate) struct CancelOnDrop {
    pub(crate) armed: Option<Box<dyn FnOnce() + Send>>,
}

impl CancelOnDrop {
    /// Armed to record, by `cancel(thread_id)`, that the run of `thread_id` was cancelled,
    /// freeing `slot` once that is saved (see [`cancel_later`]).
    pub(crate) fn new<F, R>(thread_id: String, slot: RunSlot, cancel: F) -> Self
    where
        F: FnOnce(String) -> R + Send + 'static,
        R: Future<Output = Result<bool, ThreadError>> + Send + 'static,
    {
        CancelOnDrop {
            armed: Some(Box::new(move || {
                let cancel = cancel(thread_id.clone());
                cancel_later(thread_id, slot, cancel)
            })),
        }
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(cancel) = self.armed.take() {
            cancel();
        }
    }
}

/// Records in the background, by `cancel`, that the run of `thread_id` was cancelled, then
/// frees the thread for a new run.
fn cancel_later<F>(thread_id: String, slot: RunSlot, cancel: F)
where
    F: Future<Output = Result<bool, ThreadError>> + Send + 'static,
{
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        tracing::warn!(thread = %thread_id, "run dropped outside a tokio runtime: not marked cancelled");
        return;
    };
    runtime.spawn(async move {
        match cancel.await {
            Ok(true) => tracing::info!(thread = %thread_id, "client went away: run cancelled"),
            Ok(false) => {}
            Err(error) => {
                tracing::warn!(thread = %thread_id, %error, "the cancelled run could not be recorded")
            }
        }
        // The thread takes a new run only once the cancellation is saved.
        drop(slot);
    });
}

pub(crate) fn json<V: Serialize>(value: &V) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Streams `request`'s run on thread `thread_id`, encoded by `encoder`.
pub(crate) fn stream<T, O, C, S, E>(
    inner: Arc<Inner<T, O, C, S>>,
    slot: RunSlot,
    thread_id: String,
    context: Arc<C>,
    request: RunRequest,
    mut encoder: E,
    keep_alive: std::time::Duration,
) -> RunBody
where
    T: Toolset<C, S> + Send + Sync + 'static,
    T::Event: Serialize,
    O: OutputSpec + Send + Sync + 'static,
    O::Output: Serialize + Send,
    C: Send + Sync + 'static,
    S: ThreadState + Default,
    E: Encoder,
{
    body(keep_alive, move |frames| async move {
        let mut guard = {
            let inner = Arc::clone(&inner);
            CancelOnDrop::new(thread_id.clone(), slot, move |id| async move {
                inner.agent.thread(id).cancel().await
            })
        };
        let agent = &inner.agent;
        let thread = agent.thread(thread_id.as_str());
        let mut out = Vec::new();
        let initial = match E::NEEDS_STATE {
            false => Ok(Value::Null),
            true => thread.state().await.map(|s| json(&s.unwrap_or_default())),
        };
        let initial = match initial {
            Ok(state) => state,
            Err(error) => {
                encoder.start(&Value::Null, &mut out);
                encoder.failed(&error.to_string(), &mut out);
                guard.armed = None;
                let _ = frames.send(&mut out).await;
                return;
            }
        };
        let rejected: Vec<String> = match &request {
            RunRequest::Decide(decisions) => rejected_calls(decisions),
            _ => Vec::new(),
        };
        // The rejected calls whose rejection the run streamed: recorded for the history.
        let mut denied = Vec::new();
        if let RunRequest::Decide(decisions) = &request
            && let Ok(Some(pause)) = thread.pending().await
        {
            resumed(&mut encoder, &pause.calls, decisions);
        }
        encoder.start(&initial, &mut out);
        if frames.send(&mut out).await.is_err() {
            return;
        }
        let mut events = match request {
            RunRequest::Input(text) => thread.stream(text, Arc::clone(&context)),
            RunRequest::Decide(decisions) | RunRequest::Messages(decisions) => {
                thread.resume_stream(decisions, Arc::clone(&context))
            }
        };
        let mut done = false;
        while let Some(item) = events.next().await {
            if let Ok(AgentEvent::ToolResult(step)) = &item
                && rejected.contains(&step.call.id)
            {
                denied.push(step.call.id.clone());
            }
            match item.map(|event| encode(&mut encoder, event, &mut out)) {
                Ok(None) => {}
                Ok(Some(AgentEvent::Paused(pause))) => {
                    encoder.paused(&pause.calls, &json(pause.state()), &mut out)
                }
                Ok(Some(AgentEvent::Done { .. })) => done = true,
                Ok(Some(_)) => {}
                Err(error) => encoder.failed(&error.to_string(), &mut out),
            }
            if frames.send(&mut out).await.is_err() {
                // The client went away: `events` (the run) is dropped, then the guard.
                return;
            }
        }
        if done {
            match events.outcome().await {
                Ok(Outcome::Finished(result)) => {
                    encoder.finished(&json(&result.output), &json(&result.state), &mut out)
                }
                Ok(Outcome::Paused(pause)) => {
                    encoder.paused(&pause.calls, &json(pause.state()), &mut out)
                }
                Err(error) => encoder.failed(&error.to_string(), &mut out),
            }
        }
        if !denied.is_empty() {
            let messages = thread.messages().await.map_err(Into::into);
            record_denied(&inner.owners, &thread_id, messages, &denied).await;
        }
        // The run ended and is saved: nothing to cancel from here.
        guard.armed = None;
        if frames.send(&mut out).await.is_err() {
            return;
        }
        frames.end(encoder.end()).await;
    })
}

/// The calls `decisions` reject.
pub(crate) fn rejected_calls(decisions: &[(String, Decision)]) -> Vec<String> {
    decisions
        .iter()
        .filter(|(_, d)| matches!(d, Decision::Reject { .. }))
        .map(|(call, _)| call.clone())
        .collect()
}

/// Tells `encoder` the run resumes a pause of `calls` with `decisions` (see
/// [`Encoder::resumed`]).
pub(crate) fn resumed<E: Encoder>(
    encoder: &mut E,
    calls: &[PendingCall],
    decisions: &[(String, Decision)],
) {
    let ids: Vec<String> = calls.iter().map(|c| c.call.id.clone()).collect();
    let ran: Vec<String> = calls
        .iter()
        .filter(|c| c.result.is_some())
        .map(|c| c.call.id.clone())
        .collect();
    encoder.resumed(&ids, &ran, &rejected_calls(decisions));
}

/// Records that the calls `denied` were rejected, for the history, given the thread's
/// `messages` after the run.
pub(crate) async fn record_denied(
    owners: &Owners,
    thread_id: &str,
    messages: Result<Vec<Message>, ServeError>,
    denied: &[String],
) {
    // Call ids repeat in a thread (some models count from 1 in each answer): the record
    // names the rejected call's result by its id and its occurrence.
    let recorded = match messages {
        Ok(messages) => {
            owners
                .deny(thread_id, &denied_keys(&messages, denied))
                .await
        }
        Err(error) => Err(error),
    };
    if let Err(error) = recorded {
        tracing::warn!(thread = %thread_id, %error, "the rejected calls could not be recorded");
    }
}

/// The keys of the rejected calls `denied` (each the newest result of its id in `messages`):
/// see [`result_key`].
fn denied_keys(messages: &[Message], denied: &[String]) -> Vec<String> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut newest: HashMap<&str, String> = HashMap::new();
    for message in messages {
        if let Message::Tool(result) = message {
            let n = seen.entry(result.call_id.as_str()).or_default();
            newest.insert(result.call_id.as_str(), result_key(&result.call_id, *n));
            *n += 1;
        }
    }
    denied
        .iter()
        .filter_map(|id| newest.get(id.as_str()).cloned())
        .collect()
}

/// The key of the `n`th (from 0) result of call id `call_id` in a thread.
pub(crate) fn result_key(call_id: &str, n: usize) -> String {
    format!("{n}:{call_id}")
}

/// A tool's typed event as the JSON the protocols carry. An event that does not serialize
/// (a map with non-string keys, say) is sent as `{"error": ..}` so the client still sees it.
fn custom_json<E: Serialize>(custom: CustomEvent<E>) -> CustomEvent<Value> {
    let data = serde_json::to_value(&custom.data).unwrap_or_else(|e| {
        tracing::warn!(call_id = %custom.call_id, error = %e, "a tool's event does not serialize");
        serde_json::json!({ "error": format!("the event does not serialize: {e}") })
    });
    CustomEvent {
        call_id: custom.call_id,
        data,
    }
}
