//! [`EventHub`]: where a service process's Restate runs publish their events, by invocation
//! id, and where callers subscribe (in process, or over SSE with
//! [`EventHub::router`](super::EventHub::router)).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use futures::Stream;
use tokio::sync::watch;

use super::events::{RunEvent, StreamedEvent};

/// The default number of events kept per run.
pub const DEFAULT_EVENTS_PER_RUN: usize = 10_000;
/// The default number of runs kept.
pub const DEFAULT_RUNS: usize = 1_000;

/// The events of the runs a service process serves, by invocation id, for callers to follow.
///
/// A [`RestateAgent`](super::RestateAgent) given a hub
/// ([`RestateAgent::events`](super::RestateAgent::events)) publishes each journaled step's
/// events once the engine has stored the step, numbered in journal order
/// ([`StreamedEvent::seq`]). An attempt that replays the journal publishes the same events
/// with the same numbers again; the hub drops those it has, so a subscriber never receives a
/// number twice.
///
/// Bounded: a run keeps its last `events_per_run` events (a subscriber that falls further
/// behind is told how many it missed, [`Followed::Missed`]), and the hub keeps the last
/// `runs` runs (the oldest finished run is forgotten first).
///
/// The hub lives in the service process: a caller follows a run on the process that runs
/// it. After that process dies, the engine runs the invocation again on the next one, whose
/// hub receives the journaled events again; a caller reconnecting there from its last
/// `seq` receives the rest.
///
/// ```
/// use agentry::restate::{EventHub, Followed, RunEvent};
/// use futures::StreamExt;
///
/// # futures::executor::block_on(async {
/// let hub = EventHub::new();
/// let mut events = Box::pin(hub.subscribe("inv_1", None));
/// hub.publish("inv_1", 0, [RunEvent::TextDelta { text: "Hi".into() }]);
/// hub.publish("inv_1", 0, [RunEvent::TextDelta { text: "Hi".into() }]); // a replay: dropped
/// hub.close("inv_1");
/// let Some(Followed::Event(first)) = events.next().await else { panic!() };
/// assert_eq!(first.seq, 0);
/// assert!(events.next().await.is_none());
/// # });
/// ```
#[derive(Clone)]
pub struct EventHub {
    inner: Arc<Inner>,
}

struct Inner {
    events_per_run: usize,
    runs: usize,
    channels: Mutex<Channels>,
}

#[derive(Default)]
struct Channels {
    by_id: HashMap<String, Channel>,
    /// Bumped for each channel made: the order to forget them in.
    made: u64,
}

struct Channel {
    made: u64,
    /// The events kept, oldest first, numbered consecutively.
    events: VecDeque<StreamedEvent>,
    /// The number the next new event has.
    next: u64,
    closed: bool,
    /// Bumped on every change, to wake subscribers.
    changed: watch::Sender<u64>,
}

impl Channel {
    fn new(made: u64) -> Self {
        Channel {
            made,
            events: VecDeque::new(),
            next: 0,
            closed: false,
            changed: watch::Sender::new(0),
        }
    }

    fn notify(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }
}

/// What a subscriber receives.
#[derive(Clone, Debug, PartialEq)]
pub enum Followed {
    /// The next event.
    Event(StreamedEvent),
    /// Events `from..=to` are no longer kept (the subscriber fell behind the run's buffer, or
    /// asked for events older than it): they are skipped.
    Missed {
        /// The first missed number.
        from: u64,
        /// The last missed number.
        to: u64,
    },
}

impl std::fmt::Debug for EventHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventHub")
            .field("events_per_run", &self.inner.events_per_run)
            .field("runs", &self.inner.runs)
            .finish_non_exhaustive()
    }
}

impl Default for EventHub {
    fn default() -> Self {
        Self::new()
    }
}

impl EventHub {
    /// A hub keeping [`DEFAULT_EVENTS_PER_RUN`] events of each of [`DEFAULT_RUNS`] runs.
    pub fn new() -> Self {
        Self::with_limits(DEFAULT_EVENTS_PER_RUN, DEFAULT_RUNS)
    }

    /// A hub keeping `events_per_run` events of each of `runs` runs (each at least 1).
    pub fn with_limits(events_per_run: usize, runs: usize) -> Self {
        EventHub {
            inner: Arc::new(Inner {
                events_per_run: events_per_run.max(1),
                runs: runs.max(1),
                channels: Mutex::new(Channels::default()),
            }),
        }
    }

    fn channels(&self) -> MutexGuard<'_, Channels> {
        self.inner
            .channels
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Publishes `events` of run `id`, the first numbered `first`: those the hub has already
    /// (a replay) are dropped.
    pub fn publish(&self, id: &str, first: u64, events: impl IntoIterator<Item = RunEvent>) {
        let limit = self.inner.events_per_run;
        let mut channels = self.channels();
        let channel = self.channel(&mut channels, id);
        let mut added = false;
        for (seq, event) in (first..).zip(events) {
            if seq >= channel.next {
                channel.events.push_back(StreamedEvent { seq, event });
                channel.next = seq + 1;
                added = true;
                if channel.events.len() > limit {
                    channel.events.pop_front();
                }
            }
        }
        if added {
            channel.notify();
        }
    }

    /// Marks run `id` finished: its subscribers' streams end after its last event.
    pub fn close(&self, id: &str) {
        let mut channels = self.channels();
        let channel = self.channel(&mut channels, id);
        channel.closed = true;
        channel.notify();
    }

    /// The channel of `id`, made (and the oldest forgotten, past the limit) if new.
    fn channel<'c>(&self, channels: &'c mut Channels, id: &str) -> &'c mut Channel {
        if !channels.by_id.contains_key(id) {
            if channels.by_id.len() >= self.inner.runs {
                // The oldest finished run, else the oldest.
                let oldest = |closed: bool| {
                    channels
                        .by_id
                        .iter()
                        .filter(|(_, c)| !closed || c.closed)
                        .min_by_key(|(_, c)| c.made)
                        .map(|(id, _)| id.clone())
                };
                let old = oldest(true).or_else(|| oldest(false));
                // Its subscribers end (their receivers see the sender dropped).
                if let Some(gone) = old.and_then(|old| channels.by_id.remove(&old)) {
                    gone.notify();
                }
            }
            channels.made += 1;
            let made = channels.made;
            channels.by_id.insert(id.to_owned(), Channel::new(made));
        }
        channels.by_id.get_mut(id).expect("inserted above")
    }

    /// Follows run `id` from the event after `after` (from its first event when `None`),
    /// until the run finishes. A run the hub does not know yet is waited for (its invocation
    /// may not have started on this process yet).
    pub fn subscribe(&self, id: &str, after: Option<u64>) -> impl Stream<Item = Followed> + use<> {
        let changed = {
            let mut channels = self.channels();
            self.channel(&mut channels, id).changed.subscribe()
        };
        let state = Follow {
            hub: self.clone(),
            id: id.to_owned(),
            next: after.map_or(0, |n| n.saturating_add(1)),
            changed,
            ready: VecDeque::new(),
        };
        futures::stream::unfold(state, |mut state| async move {
            let item = state.next_item().await?;
            Some((item, state))
        })
    }
}

/// A subscriber's place in a run.
struct Follow {
    hub: EventHub,
    id: String,
    /// The next number it wants.
    next: u64,
    changed: watch::Receiver<u64>,
    ready: VecDeque<Followed>,
}

impl Follow {
    async fn next_item(&mut self) -> Option<Followed> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(item);
            }
            // Seen before reading: a change after the read wakes the wait below.
            drop(self.changed.borrow_and_update());
            let closed = {
                let channels = self.hub.channels();
                // A forgotten run ends its subscribers.
                let channel = channels.by_id.get(&self.id)?;
                if let Some(oldest) = channel.events.front()
                    && oldest.seq > self.next
                {
                    self.ready.push_back(Followed::Missed {
                        from: self.next,
                        to: oldest.seq - 1,
                    });
                    self.next = oldest.seq;
                }
                for event in channel.events.iter().filter(|e| e.seq >= self.next) {
                    self.ready.push_back(Followed::Event(event.clone()));
                }
                self.next = self.next.max(channel.next);
                channel.closed
            };
            if !self.ready.is_empty() {
                continue;
            }
            if closed {
                return None;
            }
            if self.changed.changed().await.is_err() {
                // The channel was forgotten.
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;

    fn text(t: &str) -> RunEvent {
        RunEvent::TextDelta { text: t.into() }
    }

    #[tokio::test]
    async fn replays_are_dropped_and_late_subscribers_catch_up() {
        let hub = EventHub::new();
        hub.publish("a", 0, [text("1"), text("2")]);
        // A replay of the first two, then one new.
        hub.publish("a", 0, [text("x"), text("y"), text("3")]);
        hub.close("a");
        let got: Vec<Followed> = hub.subscribe("a", None).collect().await;
        let seqs: Vec<(u64, RunEvent)> = got
            .into_iter()
            .map(|f| match f {
                Followed::Event(e) => (e.seq, e.event),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(seqs, vec![(0, text("1")), (1, text("2")), (2, text("3"))]);
        let after: Vec<Followed> = hub.subscribe("a", Some(1)).collect().await;
        assert_eq!(after.len(), 1);
    }

    #[tokio::test]
    async fn a_subscriber_behind_the_buffer_is_told_what_it_missed() {
        let hub = EventHub::with_limits(2, 10);
        hub.publish("a", 0, (0..5).map(|i| text(&i.to_string())));
        hub.close("a");
        let got: Vec<Followed> = hub.subscribe("a", None).collect().await;
        assert_eq!(got[0], Followed::Missed { from: 0, to: 2 });
        assert_eq!(got.len(), 3);
    }

    #[tokio::test]
    async fn a_waiting_subscriber_is_woken_and_old_runs_are_forgotten() {
        let hub = EventHub::with_limits(10, 1);
        let mut follow = Box::pin(hub.subscribe("a", None));
        let publisher = hub.clone();
        let task = tokio::spawn(async move {
            tokio::task::yield_now().await;
            publisher.publish("a", 0, [text("1")]);
            publisher.close("a");
        });
        assert!(matches!(follow.next().await, Some(Followed::Event(_))));
        assert!(follow.next().await.is_none());
        task.await.unwrap();
        // A second run pushes the first (finished) out.
        hub.publish("b", 0, [text("1")]);
        let channels = hub.channels();
        assert!(channels.by_id.contains_key("b") && !channels.by_id.contains_key("a"));
    }
}
