//! The SDK's injectable parameter types.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::runtime::{Inject, InjectError, ToolRuntime, UpdateQueue, lock};
use crate::store::Store;

/// The run's context (the user, the tenant, a request id...), shared read-only by every tool.
///
/// A tool that takes `Context<User>` can only be used by an agent declared with
/// `context = User`; anything else is a compile error.
pub struct Context<C>(Arc<C>);

impl<C> Context<C> {
    /// Wraps a context value (useful when calling a tool function directly in a test).
    pub fn new(value: C) -> Self {
        Context(Arc::new(value))
    }

    /// The shared context.
    pub fn shared(&self) -> &Arc<C> {
        &self.0
    }
}

impl<C> Clone for Context<C> {
    fn clone(&self) -> Self {
        Context(Arc::clone(&self.0))
    }
}

impl<C> Deref for Context<C> {
    type Target = C;
    fn deref(&self) -> &C {
        &self.0
    }
}

impl<C: fmt::Debug> fmt::Debug for Context<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Context").field(&self.0).finish()
    }
}

impl<C, S> Inject<C, S> for Context<C> {
    fn inject(rt: &ToolRuntime<C, S>) -> Result<Self, InjectError> {
        Ok(Context(Arc::clone(rt.shared_context())))
    }
}

/// The run's typed state: a snapshot to read, and updates to queue.
///
/// Updates do not change the snapshot that concurrently running tools see. The runtime applies
/// them after the batch of calls, call by call in the order the model emitted them, so
/// parallel tool calls update state deterministically.
///
/// ```
/// use agentry::{State, ToolRuntime};
///
/// let rt = ToolRuntime::new().with_state(vec![1, 2]);
/// let state: State<Vec<i32>> = agentry::Inject::inject(&rt).unwrap();
/// assert_eq!(state.len(), 2);
/// state.update(|items| items.push(3));
/// assert_eq!(state.len(), 2, "the snapshot does not change");
///
/// let mut next = rt.state().clone();
/// rt.apply_state_updates(&mut next);
/// assert_eq!(next, vec![1, 2, 3]);
/// ```
pub struct State<S> {
    snapshot: Arc<S>,
    updates: UpdateQueue<S>,
}

impl<S> State<S> {
    /// Queues an update, applied after this batch of tool calls.
    pub fn update(&self, f: impl FnOnce(&mut S) + Send + 'static) {
        lock(&self.updates).push(Box::new(f));
    }

    /// Queues replacing the state with `value`.
    pub fn set(&self, value: S)
    where
        S: Send + 'static,
    {
        self.update(move |s| *s = value);
    }
}

impl<S> Deref for State<S> {
    type Target = S;
    fn deref(&self) -> &S {
        &self.snapshot
    }
}

impl<S: fmt::Debug> fmt::Debug for State<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&self.snapshot).finish()
    }
}

impl<C, S> Inject<C, S> for State<S> {
    fn inject(rt: &ToolRuntime<C, S>) -> Result<Self, InjectError> {
        let (snapshot, updates) = rt.shared_state();
        Ok(State {
            snapshot: Arc::clone(snapshot),
            updates: Arc::clone(updates),
        })
    }
}

/// The id the provider gave the tool call being run.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct ToolCallId(Arc<str>);

impl ToolCallId {
    /// An id from a string.
    pub fn new(id: impl Into<Arc<str>>) -> Self {
        ToolCallId(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for ToolCallId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ToolCallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for ToolCallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<C, S> Inject<C, S> for ToolCallId {
    fn inject(rt: &ToolRuntime<C, S>) -> Result<Self, InjectError> {
        Ok(rt.call_id_value().clone())
    }
}

impl<C, S> Inject<C, S> for Store {
    fn inject(rt: &ToolRuntime<C, S>) -> Result<Self, InjectError> {
        rt.store().cloned().ok_or_else(|| {
            InjectError::new::<Store>("this run has no store; configure one on the agent")
        })
    }
}

/// A custom event written by a tool while it runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomEvent {
    /// The id of the tool call that wrote it.
    pub call_id: String,
    /// The event's payload.
    pub data: serde_json::Value,
}

/// Lets a tool stream progress events to whoever is consuming the run.
///
/// Writing never blocks and never fails the tool. When nobody consumes events (a runtime
/// built without an event sender), [`StreamWriter::write`] reports `false`.
#[derive(Clone)]
pub struct StreamWriter {
    call_id: ToolCallId,
    sender: Option<Sink>,
}

/// Where a run's tools send their custom events (the run's event queue); `false` when the
/// consumer is gone.
pub(crate) type CustomSink = std::sync::Arc<dyn Fn(CustomEvent) -> bool + Send + Sync>;

#[derive(Clone)]
enum Sink {
    /// A channel given to [`ToolRuntime::with_event_sender`](crate::ToolRuntime::with_event_sender).
    Channel(tokio::sync::mpsc::UnboundedSender<CustomEvent>),
    /// A streamed run's event queue.
    Run(CustomSink),
}

impl StreamWriter {
    pub(crate) fn new(
        call_id: ToolCallId,
        sender: tokio::sync::mpsc::UnboundedSender<CustomEvent>,
    ) -> Self {
        StreamWriter {
            call_id,
            sender: Some(Sink::Channel(sender)),
        }
    }

    pub(crate) fn to_sink(call_id: ToolCallId, sink: CustomSink) -> Self {
        StreamWriter {
            call_id,
            sender: Some(Sink::Run(sink)),
        }
    }

    pub(crate) fn disconnected() -> Self {
        StreamWriter {
            call_id: ToolCallId::default(),
            sender: None,
        }
    }

    pub(crate) fn for_call(&self, call_id: ToolCallId) -> Self {
        StreamWriter {
            call_id,
            sender: self.sender.clone(),
        }
    }

    /// Sends an event; returns whether a consumer received it.
    pub fn write(&self, data: impl Serialize) -> bool {
        let Some(sender) = &self.sender else {
            return false;
        };
        let data = match serde_json::to_value(data) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, "tool stream event is not serializable; dropped");
                return false;
            }
        };
        let event = CustomEvent {
            call_id: self.call_id.as_str().to_string(),
            data,
        };
        match sender {
            Sink::Channel(channel) => channel.send(event).is_ok(),
            Sink::Run(sink) => sink(event),
        }
    }
}

impl fmt::Debug for StreamWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamWriter")
            .field("call_id", &self.call_id)
            .field("connected", &self.sender.is_some())
            .finish()
    }
}

impl<C, S> Inject<C, S> for StreamWriter {
    fn inject(rt: &ToolRuntime<C, S>) -> Result<Self, InjectError> {
        Ok(rt.writer().clone())
    }
}
