//! The queue between a streamed run and its [`AgentStream`](super::AgentStream).
//!
//! The run is a future the stream owns and polls, so nearly every event is sent while the
//! stream itself is polling, and read right after: a channel's atomics, block allocation and
//! wake-ups buy nothing there. This is a locked `VecDeque` read by the stream after each poll
//! of the run, and a waker for the events that come from elsewhere (a sync tool's
//! [`StreamWriter`](crate::StreamWriter) on the blocking pool).
//!
//! Tools' custom events go through the same queue, so they keep their order with the run's
//! own events (a tool's writes come before its result).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use futures::task::AtomicWaker;

use crate::run::AgentEvent;
use crate::tool::{CustomEvent, ErasedEvent, ToolCallId, take_event};

struct Shared<T, S, E> {
    queue: Mutex<VecDeque<AgentEvent<T, S, E>>>,
    /// The stream's waker, registered only while it waits with an empty queue.
    waker: AtomicWaker,
    /// Set when the stream is dropped: later events are dropped instead of kept.
    closed: AtomicBool,
}

impl<T, S, E> Shared<T, S, E> {
    fn lock(&self) -> MutexGuard<'_, VecDeque<AgentEvent<T, S, E>>> {
        // A panic while holding the lock leaves a whole queue behind: use it.
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The run's end: sends events to the stream.
pub(crate) struct EventSender<T, S, E>(Arc<Shared<T, S, E>>);

/// The stream's end.
pub(crate) struct EventReceiver<T, S, E>(Arc<Shared<T, S, E>>);

impl<T, S, E> Clone for EventSender<T, S, E> {
    fn clone(&self) -> Self {
        EventSender(Arc::clone(&self.0))
    }
}

/// A new queue.
pub(crate) fn event_queue<T, S, E>() -> (EventSender<T, S, E>, EventReceiver<T, S, E>) {
    let shared = Arc::new(Shared {
        // Room for a turn's worth of events: a run queues what one poll produces.
        queue: Mutex::new(VecDeque::with_capacity(16)),
        waker: AtomicWaker::new(),
        closed: AtomicBool::new(false),
    });
    (EventSender(Arc::clone(&shared)), EventReceiver(shared))
}

impl<T, S, E> EventSender<T, S, E> {
    /// Queues `event`; `false` (and the event dropped) when the stream is gone.
    pub(crate) fn send(&self, event: AgentEvent<T, S, E>) -> bool {
        {
            // Checked under the lock the receiver's drop takes: no event is queued after it.
            let mut queue = self.0.lock();
            if self.0.closed.load(Ordering::Relaxed) {
                return false;
            }
            queue.push_back(event);
        }
        self.0.waker.wake();
        true
    }
}

impl<T: Send + 'static, S: Send + 'static, E: Send + 'static> EventSender<T, S, E> {
    /// Where a tool's [`StreamWriter`](crate::StreamWriter) sends: this queue, as
    /// [`AgentEvent::Custom`] of the agent's event type `E` (an event of another type, which
    /// `#[agent]` rules out at compile time, is dropped with a warning).
    pub(crate) fn custom_sink(&self) -> crate::tool::CustomSink {
        let sender = self.clone();
        Arc::new(move |call_id: &ToolCallId, event: Box<dyn ErasedEvent>| {
            let Some(data) = take_event::<E>(event) else {
                return false;
            };
            sender.send(AgentEvent::Custom(CustomEvent {
                call_id: call_id.as_str().to_string(),
                data,
            }))
        })
    }
}

impl<T, S, E> EventReceiver<T, S, E> {
    /// The next queued event, if any.
    pub(crate) fn pop(&self) -> Option<AgentEvent<T, S, E>> {
        self.0.lock().pop_front()
    }

    /// Stops waking the stream: what is sent from now on is read after the poll in progress.
    pub(crate) fn unregister(&self) {
        self.0.waker.take();
    }

    /// `Ready` with the next event, or `Pending` with the stream's waker registered for the
    /// next one.
    pub(crate) fn poll_pop(&self, cx: &mut Context<'_>) -> Poll<AgentEvent<T, S, E>> {
        if let Some(event) = self.pop() {
            return Poll::Ready(event);
        }
        self.0.waker.register(cx.waker());
        // An event sent between the check and the registration found no waker: look again.
        match self.pop() {
            Some(event) => Poll::Ready(event),
            None => Poll::Pending,
        }
    }
}

impl<T, S, E> Drop for EventReceiver<T, S, E> {
    fn drop(&mut self) {
        let mut queue = self.0.lock();
        self.0.closed.store(true, Ordering::Relaxed);
        queue.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::task::Waker;

    use super::*;

    type Event = AgentEvent<String, ()>;

    fn turn(n: u32) -> Event {
        AgentEvent::TurnStart { turn: n }
    }

    fn turn_of(event: Event) -> u32 {
        match event {
            AgentEvent::TurnStart { turn } => turn,
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn events_come_out_in_order() {
        let (tx, rx) = event_queue::<String, (), serde_json::Value>();
        assert!(tx.send(turn(1)) && tx.clone().send(turn(2)));
        assert_eq!(rx.pop().map(turn_of), Some(1));
        assert_eq!(rx.pop().map(turn_of), Some(2));
        assert!(rx.pop().is_none());
    }

    #[test]
    fn a_waiting_stream_is_woken_by_a_send_from_another_thread() {
        let (tx, rx) = event_queue::<String, (), serde_json::Value>();
        let (waker, woken) = counting_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(rx.poll_pop(&mut cx).is_pending());
        std::thread::spawn(move || tx.send(turn(7))).join().unwrap();
        assert_eq!(woken.load(Ordering::SeqCst), 1);
        assert!(matches!(
            rx.poll_pop(&mut cx),
            Poll::Ready(AgentEvent::TurnStart { turn: 7 })
        ));
    }

    #[test]
    fn after_unregister_a_send_does_not_wake() {
        let (tx, rx) = event_queue::<String, (), serde_json::Value>();
        let (waker, woken) = counting_waker();
        assert!(rx.poll_pop(&mut Context::from_waker(&waker)).is_pending());
        rx.unregister();
        tx.send(turn(1));
        assert_eq!(woken.load(Ordering::SeqCst), 0);
        assert_eq!(rx.pop().map(turn_of), Some(1));
    }

    #[test]
    fn once_the_stream_is_dropped_events_are_dropped_not_kept() {
        let (tx, rx) = event_queue::<String, (), serde_json::Value>();
        tx.send(turn(1));
        drop(rx);
        assert!(!tx.send(turn(2)));
        assert!(tx.0.lock().is_empty());
    }

    /// A waker counting its wakes.
    fn counting_waker() -> (Waker, Arc<std::sync::atomic::AtomicUsize>) {
        struct Count(Arc<std::sync::atomic::AtomicUsize>);
        impl std::task::Wake for Count {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        (Waker::from(Arc::new(Count(count.clone()))), count)
    }
}
