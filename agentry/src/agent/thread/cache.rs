//! The worker's cache of decoded threads: a run on a thread this agent ran last loads only
//! what is newer than the messages it holds, so its cost does not grow with the thread.
//!
//! An entry is the thread's messages up to a checkpoint and that checkpoint's
//! [`CheckpointMeta`]. It is checked on every use by
//! [`Checkpointer::latest_since`]: the newest checkpoint comes back with only the messages
//! after the entry's, so a step another worker wrote is seen, and a thread deleted or replaced
//! since is loaded whole. A run takes its thread's entry out while it goes on and puts the
//! thread back when it ends idle; the cache holds at most `capacity` threads, the least
//! recently used leave first.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::message::Message;
use crate::persist::{Checkpoint, CheckpointMeta, Checkpointer, PersistError};

/// The default number of threads an agent keeps decoded
/// ([`AgentBuilder::thread_cache`](crate::agent::AgentBuilder::thread_cache)).
pub const DEFAULT_THREAD_CACHE: usize = 64;

struct Entry {
    meta: CheckpointMeta,
    messages: Vec<Message>,
    used: u64,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    clock: u64,
}

/// Decoded threads, by id (see the module's documentation).
pub(crate) struct ThreadCache {
    capacity: usize,
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for ThreadCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadCache")
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

impl ThreadCache {
    pub(crate) fn new(capacity: usize) -> Self {
        ThreadCache {
            capacity,
            inner: Mutex::new(Inner::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // The map stays consistent whatever panicked while it was locked.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The thread's newest checkpoint with all its messages: from the cached entry and the
    /// messages newer than it (one query), or loaded whole (one query) when the thread is not
    /// cached or its entry is stale. The entry is taken out.
    pub(crate) async fn latest(
        &self,
        checkpointer: &dyn Checkpointer,
        thread_id: &str,
    ) -> Result<Option<Checkpoint>, PersistError> {
        let entry = self.lock().entries.remove(thread_id);
        if let Some(entry) = entry
            && let Some(mut newer) = checkpointer.latest_since(&entry.meta).await?
        {
            let mut messages = entry.messages;
            messages.append(&mut newer.messages);
            newer.messages = messages;
            return Ok(Some(newer));
        }
        checkpointer.latest(thread_id).await
    }

    /// Keeps a copy of a finished run's transcript, the thread as of checkpoint `meta` (the
    /// transcript's system message is not the thread's).
    pub(crate) fn keep(&self, meta: CheckpointMeta, transcript: &[Message]) {
        if self.capacity == 0 {
            return;
        }
        let offset = usize::from(matches!(transcript.first(), Some(Message::System { .. })));
        let thread = &transcript[offset..];
        // Room for the next run's input, answer and system message: no reallocation of the
        // whole thread when they are added.
        let mut messages = Vec::with_capacity(thread.len() + 16);
        messages.extend_from_slice(thread);
        self.put(meta, messages);
    }

    /// Keeps the thread's `messages` (without a system message) as of checkpoint `meta`.
    pub(crate) fn put(&self, meta: CheckpointMeta, messages: Vec<Message>) {
        if self.capacity == 0 || messages.len() as u64 != meta.message_count {
            return;
        }
        let mut inner = self.lock();
        inner.clock += 1;
        let used = inner.clock;
        if !inner.entries.contains_key(&meta.thread_id) && inner.entries.len() >= self.capacity {
            let oldest = inner
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                inner.entries.remove(&oldest);
            }
        }
        let id = meta.thread_id.clone();
        inner.entries.insert(
            id,
            Entry {
                meta,
                messages,
                used,
            },
        );
    }

    /// Forgets the thread (deleted, cancelled, or changed outside a run of this agent).
    pub(crate) fn forget(&self, thread_id: &str) {
        self.lock().entries.remove(thread_id);
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    fn meta(thread_id: &str, message_count: u64) -> CheckpointMeta {
        CheckpointMeta {
            thread_id: thread_id.into(),
            step: 1,
            parent: None,
            format_version: crate::persist::FORMAT_VERSION,
            message_count,
            created_at: UNIX_EPOCH,
        }
    }

    #[test]
    fn the_least_recently_used_thread_leaves_first_and_capacity_zero_keeps_none() {
        let cache = ThreadCache::new(2);
        let one = vec![Message::user("hi")];
        cache.put(meta("a", 1), one.clone());
        cache.put(meta("b", 1), one.clone());
        cache.put(meta("a", 1), one.clone()); // `a` used again: `b` is the oldest
        cache.put(meta("c", 1), one.clone());
        let inner = cache.lock();
        let mut ids: Vec<&String> = inner.entries.keys().collect();
        ids.sort();
        assert_eq!(ids, ["a", "c"]);
        drop(inner);
        // Messages that do not match the checkpoint's count are not kept.
        cache.put(meta("d", 5), one.clone());
        assert!(!cache.lock().entries.contains_key("d"));
        let none = ThreadCache::new(0);
        none.put(meta("a", 1), one);
        assert_eq!(none.len(), 0);
    }
}
