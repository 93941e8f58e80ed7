//! [`Publisher`]: one attempt's side of a run's event stream. The run's events gather in a
//! buffer; each journaled step takes the buffer into its journal entry (see
//! [`super::steps`]), and once the engine has stored the step its events go to the
//! [`EventHub`], numbered in journal order. An attempt replaying the journal drops the events
//! it makes again and publishes the journaled ones: the same events with the same numbers.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::events::RunEvent;
use super::hub::EventHub;

/// What a journaled step stores: its value and the run's events up to it.
#[derive(Serialize, Deserialize)]
pub(crate) struct Entry {
    pub(crate) value: Value,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) events: Vec<RunEvent>,
}

/// One attempt's publisher of invocation `id`'s events (a no-op without a hub).
pub(crate) struct Publisher {
    hub: Option<EventHub>,
    id: String,
    buffer: Mutex<Vec<RunEvent>>,
    /// The number of the next event published.
    next: AtomicU64,
}

impl Publisher {
    pub(crate) fn new(hub: Option<EventHub>, id: &str) -> Arc<Self> {
        Arc::new(Publisher {
            hub,
            id: id.to_owned(),
            buffer: Mutex::new(Vec::new()),
            next: AtomicU64::new(0),
        })
    }

    fn buffer(&self) -> MutexGuard<'_, Vec<RunEvent>> {
        self.buffer.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the events go anywhere (a hub is set).
    pub(crate) fn publishes(&self) -> bool {
        self.hub.is_some()
    }

    /// Keeps an event of the run for the next journaled step.
    pub(crate) fn push(&self, event: RunEvent) {
        if self.hub.is_some() {
            self.buffer().push(event);
        }
    }

    /// The events gathered since the last step, for its journal entry.
    pub(crate) fn take(&self) -> Vec<RunEvent> {
        std::mem::take(&mut *self.buffer())
    }

    /// A step is stored: publishes its journaled `events`. When its body did not run
    /// (`ran` false: the step was replayed), the events this attempt made again since the
    /// last step are dropped, the journal's stand for them.
    pub(crate) fn stored(&self, ran: bool, events: Vec<RunEvent>) {
        if !ran {
            self.buffer().clear();
        }
        let Some(hub) = &self.hub else { return };
        let first = self.next.fetch_add(events.len() as u64, Ordering::Relaxed);
        hub.publish(&self.id, first, events);
    }

    /// The run is over: its subscribers' streams end.
    pub(crate) fn close(&self) {
        if let Some(hub) = &self.hub {
            hub.close(&self.id);
        }
    }
}

/// Whether a step's body ran in this attempt.
#[derive(Clone, Default)]
pub(crate) struct Ran(Arc<AtomicBool>);

impl Ran {
    pub(crate) fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub(crate) fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
