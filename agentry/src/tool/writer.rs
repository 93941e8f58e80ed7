//! [`StreamWriter<E>`]: a tool's progress events, typed, into the run's stream.
//!
//! The runtime a tool runs with holds one writer for every event type (a [`RawWriter`]: the
//! call id and where events go), because a [`ToolRuntime`] is not generic over the events.
//! A tool's `StreamWriter<E>` is that writer with its type: it boxes each `E` it writes, and
//! the run's stream takes it back out as the agent's event type, which `#[agent]` checked at
//! compile time to be `E` (see `agent/checks.rs`). Only the untyped sinks (a channel of
//! [`CustomEvent`]s, an untyped agent fed by a hand-written tool) serialize it to JSON.

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::extract::ToolCallId;
use super::runtime::{Inject, InjectError, ToolRuntime};

/// An event a tool wrote while it ran: the writing call's id and the tool's value.
///
/// `E` is the agent's event type (`#[agent(events = E)]`), JSON when the agent declares none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomEvent<E = Value> {
    /// The id of the tool call that wrote it.
    pub call_id: String,
    /// The event's payload.
    pub data: E,
}

/// Lets a tool stream progress events of type `E` to whoever is consuming the run.
///
/// `StreamWriter` alone is `StreamWriter<serde_json::Value>`: untyped events, for agents that
/// declare no event type. A tool taking `StreamWriter<Progress>` can only be listed in an
/// agent declared with `#[agent(events = Progress)]`, whose stream then yields
/// `AgentEvent::Custom(CustomEvent<Progress>)`; anything else is a compile error naming both
/// types.
///
/// Writing never blocks and never fails the tool. When nobody consumes events (a runtime
/// built without an event sender, a run that is not streamed), [`StreamWriter::write`]
/// reports `false`.
///
/// ```
/// use agentry::{StreamWriter, ToolRuntime};
/// use serde::Serialize;
///
/// #[derive(Clone, Debug, PartialEq, Serialize)]
/// struct Progress { done: u32, total: u32 }
///
/// let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
/// let rt = ToolRuntime::new().with_call_id("call_1").with_event_sender(tx);
/// let writer: StreamWriter<Progress> = agentry::Inject::inject(&rt).unwrap();
/// assert!(writer.write(Progress { done: 1, total: 3 }));
/// // A channel of `CustomEvent`s is untyped: the event arrives as JSON.
/// let event = rx.try_recv().unwrap();
/// assert_eq!((event.call_id.as_str(), event.data["done"].as_u64()), ("call_1", Some(1)));
/// ```
pub struct StreamWriter<E = Value> {
    raw: RawWriter,
    /// Boxes an `E` for the run's stream, made where `E: ToolEvent` was checked (in
    /// [`Inject`]), so writing needs no bound: a type that is not an event is one error, at
    /// the tool that takes the writer, not a second one at each `write`.
    erase: fn(E) -> Box<dyn ErasedEvent>,
}

/// A type a tool writes through its [`StreamWriter`]: the events of a streamed run, which an
/// untyped stream or a served run sends as JSON. Every `Serialize + Send + 'static` type is
/// one; a tool taking a `StreamWriter<E>` of any other type is a compile error at the agent
/// that lists it, which says to derive `Serialize`.
///
/// ```
/// use agentry::tool::ToolEvent;
///
/// #[derive(serde::Serialize)]
/// struct Progress { done: u32, total: u32 }
///
/// fn writable<E: ToolEvent>() {}
/// writable::<Progress>();
/// writable::<serde_json::Value>(); // what `StreamWriter` alone writes
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's stream event: it needs `serde::Serialize`",
    label = "a tool writes `{Self}` through a `StreamWriter`",
    note = "add `#[derive(serde::Serialize)]` to `{Self}`: a run's events may be sent as JSON (an untyped stream, a served run)"
)]
pub trait ToolEvent: Serialize + Send + 'static {}

#[diagnostic::do_not_recommend]
impl<E: Serialize + Send + 'static> ToolEvent for E {}

fn erase<E: ToolEvent>(event: E) -> Box<dyn ErasedEvent> {
    Box::new(event)
}

impl<E> StreamWriter<E> {
    /// Sends an event; returns whether a consumer received it.
    ///
    /// An untyped writer takes anything that converts into a JSON value (`json!(..)`, a
    /// string, a number); serialize other values with `serde_json::to_value` first.
    pub fn write(&self, event: impl Into<E>) -> bool {
        self.raw.send((self.erase)(event.into()))
    }
}

impl<E> Clone for StreamWriter<E> {
    fn clone(&self) -> Self {
        StreamWriter {
            raw: self.raw.clone(),
            erase: self.erase,
        }
    }
}

impl<E> fmt::Debug for StreamWriter<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamWriter")
            .field("event", &std::any::type_name::<E>())
            .field("call_id", &self.raw.call_id)
            .field("connected", &self.raw.sink.is_some())
            .finish()
    }
}

impl<C, S, E: ToolEvent> Inject<C, S> for StreamWriter<E> {
    fn inject(rt: &ToolRuntime<C, S>) -> Result<Self, InjectError> {
        Ok(StreamWriter {
            raw: rt.writer().clone(),
            erase: erase::<E>,
        })
    }
}

/// An event on its way from a tool to a sink, its type erased.
pub(crate) trait ErasedEvent: Send {
    /// The event's type.
    fn event_type(&self) -> TypeId;
    /// The event, to downcast to its type.
    fn into_any(self: Box<Self>) -> Box<dyn Any + Send>;
    /// The event as JSON.
    fn to_json(&self) -> Result<Value, serde_json::Error>;
    /// The event's type's name, for the warning when a sink cannot take it.
    fn type_name(&self) -> &'static str;
}

impl<E: Serialize + Send + 'static> ErasedEvent for E {
    fn event_type(&self) -> TypeId {
        TypeId::of::<E>()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any + Send> {
        self
    }

    fn to_json(&self) -> Result<Value, serde_json::Error> {
        serde_json::to_value(self)
    }

    fn type_name(&self) -> &'static str {
        std::any::type_name::<E>()
    }
}

/// `event` as an `E`: itself when it is one, its JSON when `E` is [`Value`]; `None` (with a
/// warning) otherwise, which `#[agent]`'s check rules out for the tools it lists.
pub(crate) fn take_event<E: 'static>(event: Box<dyn ErasedEvent>) -> Option<E> {
    if event.event_type() == TypeId::of::<E>() {
        return event.into_any().downcast::<E>().ok().map(|e| *e);
    }
    if TypeId::of::<E>() == TypeId::of::<Value>() {
        return match event.to_json() {
            Ok(json) => (Box::new(json) as Box<dyn Any>)
                .downcast::<E>()
                .ok()
                .map(|e| *e),
            Err(error) => {
                tracing::warn!(%error, event = event.type_name(), "tool stream event is not serializable; dropped");
                None
            }
        };
    }
    tracing::warn!(
        event = event.type_name(),
        expected = std::any::type_name::<E>(),
        "a tool wrote an event of another type than the agent's events; dropped"
    );
    None
}

/// Where a run's tools send their custom events (the run's event queue); `false` when the
/// consumer is gone or cannot take the event.
pub(crate) type CustomSink = Arc<dyn Fn(&ToolCallId, Box<dyn ErasedEvent>) -> bool + Send + Sync>;

/// The writer a [`ToolRuntime`] holds: the call id, and where events go, for any event type.
#[derive(Clone)]
pub(crate) struct RawWriter {
    call_id: ToolCallId,
    sink: Option<Sink>,
}

#[derive(Clone)]
enum Sink {
    /// A channel given to [`ToolRuntime::with_event_sender`](crate::ToolRuntime::with_event_sender).
    Channel(tokio::sync::mpsc::UnboundedSender<CustomEvent>),
    /// A streamed run's event queue.
    Run(CustomSink),
}

impl RawWriter {
    pub(crate) fn channel(
        call_id: ToolCallId,
        sender: tokio::sync::mpsc::UnboundedSender<CustomEvent>,
    ) -> Self {
        RawWriter {
            call_id,
            sink: Some(Sink::Channel(sender)),
        }
    }

    pub(crate) fn to_sink(call_id: ToolCallId, sink: CustomSink) -> Self {
        RawWriter {
            call_id,
            sink: Some(Sink::Run(sink)),
        }
    }

    pub(crate) fn disconnected() -> Self {
        RawWriter {
            call_id: ToolCallId::default(),
            sink: None,
        }
    }

    pub(crate) fn for_call(&self, call_id: ToolCallId) -> Self {
        RawWriter {
            call_id,
            sink: self.sink.clone(),
        }
    }

    fn send(&self, event: Box<dyn ErasedEvent>) -> bool {
        match &self.sink {
            None => false,
            Some(Sink::Run(sink)) => sink(&self.call_id, event),
            Some(Sink::Channel(channel)) => match take_event::<Value>(event) {
                Some(data) => channel
                    .send(CustomEvent {
                        call_id: self.call_id.as_str().to_string(),
                        data,
                    })
                    .is_ok(),
                None => false,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize)]
    struct Progress(u32);

    #[test]
    fn an_event_is_taken_as_its_own_type_or_as_json() {
        assert_eq!(
            take_event::<Progress>(Box::new(Progress(3))),
            Some(Progress(3))
        );
        assert_eq!(
            take_event::<Value>(Box::new(Progress(3))),
            Some(Value::from(3))
        );
        assert_eq!(take_event::<String>(Box::new(Progress(3))), None);
    }

    #[test]
    fn a_disconnected_writer_reports_false() {
        let writer = StreamWriter::<Progress> {
            raw: RawWriter::disconnected(),
            erase: erase::<Progress>,
        };
        assert!(!writer.write(Progress(1)));
    }
}
