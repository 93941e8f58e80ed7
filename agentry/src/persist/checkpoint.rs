//! The checkpoint record and what a writer hands to a [`Checkpointer`](super::Checkpointer).

use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::PersistError;
use super::lease::Lease;
use crate::message::Message;
use crate::usage::Usage;

/// Names one checkpoint: a thread and a step in it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CheckpointRef {
    /// The thread.
    pub thread_id: String,
    /// The step (1 for a thread's first checkpoint).
    pub step: u64,
}

impl CheckpointRef {
    /// The checkpoint `step` of `thread_id`.
    pub fn new(thread_id: impl Into<String>, step: u64) -> Self {
        CheckpointRef {
            thread_id: thread_id.into(),
            step,
        }
    }
}

/// A saved step of a thread, with everything needed to continue from it.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The thread.
    pub thread_id: String,
    /// This checkpoint's number in the thread: 1, 2, 3...
    pub step: u64,
    /// The checkpoint this one continues: the previous step of the thread, or for the first
    /// checkpoint of a fork, the checkpoint it was forked from.
    pub parent: Option<CheckpointRef>,
    /// The format version it was written in (it has been upgraded to the current one).
    pub format_version: u32,
    /// The thread's messages up to this checkpoint, oldest first.
    pub messages: Vec<Message>,
    /// The run's typed state, serialized.
    pub state: Value,
    /// Tokens and requests spent so far.
    pub usage: Usage,
    /// The run loop's counters (turns, retries...), serialized.
    pub counters: Value,
    /// A pending pause (tool calls awaiting approval), serialized; `None` when not paused.
    pub pending: Option<Value>,
    /// When it was written.
    pub created_at: SystemTime,
}

impl Checkpoint {
    /// The reference to this checkpoint.
    pub fn reference(&self) -> CheckpointRef {
        CheckpointRef::new(self.thread_id.clone(), self.step)
    }
}

/// A checkpoint without its messages and body: what history listings return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointMeta {
    /// The thread.
    pub thread_id: String,
    /// The step.
    pub step: u64,
    /// The checkpoint it continues (see [`Checkpoint::parent`]).
    pub parent: Option<CheckpointRef>,
    /// The format version it was written in.
    pub format_version: u32,
    /// How many of the thread's messages it covers.
    pub message_count: u64,
    /// When it was written.
    pub created_at: SystemTime,
}

/// A thread as listed by [`Checkpointer::threads`](super::Checkpointer::threads).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadInfo {
    /// The thread.
    pub thread_id: String,
    /// Its newest checkpoint's step.
    pub latest_step: u64,
    /// Its message count at that step.
    pub message_count: u64,
    /// The checkpoint it was forked from, for a fork.
    pub forked_from: Option<CheckpointRef>,
    /// When its first checkpoint was written.
    pub created_at: SystemTime,
    /// When its newest checkpoint was written.
    pub updated_at: SystemTime,
}

/// One step to save: the messages added since the previous checkpoint and the rest of the
/// run's progress. Borrowed, so saving copies nothing the writer already holds.
#[derive(Clone, Copy, Debug)]
pub struct CheckpointWrite<'a> {
    /// The thread.
    pub thread_id: &'a str,
    /// The step this continues (`None`: the first checkpoint of a new thread). The write is
    /// refused with [`PersistError::Conflict`] when the thread is elsewhere.
    pub after: Option<u64>,
    /// Messages added since that step, appended to the thread's history.
    pub new_messages: &'a [Message],
    /// The typed state, serialized.
    pub state: &'a Value,
    /// Usage so far.
    pub usage: Usage,
    /// The loop's counters.
    pub counters: &'a Value,
    /// A pending pause, if the run is paused.
    pub pending: Option<&'a Value>,
    /// The writer's lease: the write is refused with [`PersistError::LeaseLost`] when another
    /// worker took the thread over (whatever step the thread is at). Without one, the write is
    /// refused with [`PersistError::Leased`] while another worker holds an unexpired lease.
    pub lease: Option<&'a Lease>,
}

static EMPTY_COUNTERS: Value = Value::Null;

impl<'a> CheckpointWrite<'a> {
    /// The first checkpoint of a new thread.
    pub fn first(thread_id: &'a str, messages: &'a [Message], state: &'a Value) -> Self {
        CheckpointWrite {
            thread_id,
            after: None,
            new_messages: messages,
            state,
            usage: Usage::default(),
            counters: &EMPTY_COUNTERS,
            pending: None,
            lease: None,
        }
    }

    /// The checkpoint following step `after` of `thread_id`.
    pub fn next(
        thread_id: &'a str,
        after: u64,
        new_messages: &'a [Message],
        state: &'a Value,
    ) -> Self {
        CheckpointWrite {
            after: Some(after),
            ..CheckpointWrite::first(thread_id, new_messages, state)
        }
    }

    /// With the usage so far.
    pub fn usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    /// With the loop's counters.
    pub fn counters(mut self, counters: &'a Value) -> Self {
        self.counters = counters;
        self
    }

    /// With a pending pause.
    pub fn pending(mut self, pending: &'a Value) -> Self {
        self.pending = Some(pending);
        self
    }

    /// Guarded by `lease`.
    pub fn lease(mut self, lease: &'a Lease) -> Self {
        self.lease = Some(lease);
        self
    }

    /// The step this write creates.
    pub fn step(&self) -> u64 {
        self.after.map_or(1, |s| s + 1)
    }

    pub(crate) fn validate(&self) -> Result<(), PersistError> {
        validate_thread_id(self.thread_id)?;
        if let Some(lease) = self.lease
            && lease.thread_id != self.thread_id
        {
            return Err(PersistError::Invalid {
                what: "lease",
                reason: format!(
                    "the lease is on thread `{}`, the write on `{}`",
                    lease.thread_id, self.thread_id
                ),
            });
        }
        if self.after.is_some_and(|s| s >= i64::MAX as u64) {
            return Err(PersistError::Invalid {
                what: "step",
                reason: "step number out of range".into(),
            });
        }
        Ok(())
    }
}

/// Thread ids are non-empty and at most 512 bytes.
pub(crate) fn validate_thread_id(thread_id: &str) -> Result<(), PersistError> {
    if thread_id.is_empty() || thread_id.len() > 512 {
        return Err(PersistError::Invalid {
            what: "thread id",
            reason: format!("must be 1 to 512 bytes long, got {} bytes", thread_id.len()),
        });
    }
    Ok(())
}
