//! The worker's cache of decoded threads: a run on a thread this agent ran last loads only
//! what is newer than the messages it holds, so its cost does not grow with the thread.
//!
//! An entry is the transcript of the thread's last run — what the model saw: the instructions,
//! then the thread's messages, or its compacted view (a summary, then the messages kept) —
//! and the [`CheckpointMeta`] it was saved at. It shares its buffer with the
//! [`RunResult::messages`](crate::run::RunResult::messages) of that run ([`Messages`] is
//! copy-on-write), so keeping it copies nothing, and the next run appends to it in place once
//! the caller has dropped the result.
//!
//! It is checked on every use by [`Checkpointer::latest_since`]: the newest checkpoint comes
//! back with only the messages after the entry's, so a step another worker wrote is seen, and
//! a thread deleted or replaced since (or compacted by another worker) is loaded whole. A run
//! takes its thread's entry out while it goes on and puts the thread back when it ends idle;
//! the cache holds at most `capacity` threads, the least recently used leave first.

use std::collections::HashMap;
use std::sync::Mutex;

use super::journal::RunInfo;
use crate::messages::Messages;
use crate::persist::{Checkpoint, CheckpointMeta, Checkpointer, PersistError};

/// The default number of threads an agent keeps decoded
/// ([`AgentBuilder::thread_cache`](crate::agent::AgentBuilder::thread_cache)).
pub const DEFAULT_THREAD_CACHE: usize = 64;

struct Entry {
    meta: CheckpointMeta,
    transcript: Messages,
    /// Where the compacted view starts in the thread (`None`: not compacted).
    view_start: Option<usize>,
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

/// A thread's newest checkpoint, from the cache or loaded.
pub(crate) enum Latest {
    /// From the cache: the checkpoint (its `messages` empty) and the last run's transcript
    /// with the checkpoint's newer messages appended (a stale system message may lead it).
    Cached(Checkpoint, Messages),
    /// Loaded whole: every message of the thread in the checkpoint.
    Loaded(Checkpoint),
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

    /// The thread's newest checkpoint: from the cached entry and the messages newer than it
    /// (one query), or loaded whole (one query) when the thread is not cached, its entry is
    /// stale, or its compacted view changed. The entry is taken out.
    pub(crate) async fn latest(
        &self,
        checkpointer: &dyn Checkpointer,
        thread_id: &str,
    ) -> Result<Option<Latest>, PersistError> {
        let entry = self.lock().entries.remove(thread_id);
        if let Some(entry) = entry
            && let Some(mut newer) = checkpointer.latest_since(&entry.meta).await?
        {
            // Compacted by another worker since: the view is loaded again.
            let view = RunInfo::read(thread_id, &newer.counters)
                .ok()
                .map(|info| info.view.map(|v| v.start));
            if view == Some(entry.view_start) {
                let mut transcript = entry.transcript;
                if !newer.messages.is_empty() {
                    transcript.append(&mut newer.messages);
                }
                return Ok(Some(Latest::Cached(newer, transcript)));
            }
        }
        Ok(checkpointer.latest(thread_id).await?.map(Latest::Loaded))
    }

    /// Keeps a finished run's transcript, the thread as of checkpoint `meta`, which holds
    /// `thread_len` messages. The transcript is shared, not copied.
    pub(crate) fn keep(
        &self,
        meta: CheckpointMeta,
        transcript: Messages,
        thread_len: usize,
        view_start: Option<usize>,
    ) {
        if self.capacity == 0 || thread_len as u64 != meta.message_count {
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
                transcript,
                view_start,
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
    use crate::message::Message;
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
        let one = Messages::from(vec![Message::user("hi")]);
        cache.keep(meta("a", 1), one.clone(), 1, None);
        cache.keep(meta("b", 1), one.clone(), 1, None);
        cache.keep(meta("a", 1), one.clone(), 1, None); // `a` used again: `b` is the oldest
        cache.keep(meta("c", 1), one.clone(), 1, None);
        let inner = cache.lock();
        let mut ids: Vec<&String> = inner.entries.keys().collect();
        ids.sort();
        assert_eq!(ids, ["a", "c"]);
        drop(inner);
        // A length that does not match the checkpoint's count is not kept.
        cache.keep(meta("d", 5), one.clone(), 1, None);
        assert!(!cache.lock().entries.contains_key("d"));
        let none = ThreadCache::new(0);
        none.keep(meta("a", 1), one, 1, None);
        assert_eq!(none.len(), 0);
    }

    #[test]
    fn a_kept_transcript_shares_the_runs_buffer() {
        let cache = ThreadCache::new(1);
        let transcript = Messages::from(vec![Message::system("s"), Message::user("hi")]);
        cache.keep(meta("a", 1), transcript.clone(), 1, None);
        let inner = cache.lock();
        assert!(inner.entries["a"].transcript.shares_with(&transcript));
    }
}
