//! What can go wrong with a run in a thread, and where a thread stands.

use crate::persist::PersistError;

/// Where a thread stands, from its newest checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadStatus {
    /// No checkpoint: the first run creates the thread.
    New,
    /// Its last run ended (finished or failed): the next run appends new input.
    Idle,
    /// A run was going on when the newest checkpoint was written and never finished (its
    /// process died, or its future was dropped): [`Thread::recover`](crate::agent::Thread::recover)
    /// goes on with it.
    Running,
    /// A run stopped for review: [`Thread::resume`](crate::agent::Thread::resume) goes on with it.
    Paused,
}

/// A run in a thread that could not start, load or save.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ThreadError {
    /// The agent was built without a checkpointer.
    #[error(
        "this agent has no checkpointer: add one with `.checkpointer(SqliteCheckpointer::open(path).await?)` on the builder"
    )]
    NoCheckpointer,
    /// The thread is not in the status the call needs.
    #[error("thread `{thread_id}` is {found:?}; {hint}")]
    Status {
        /// The thread.
        thread_id: String,
        /// Where it stands.
        found: ThreadStatus,
        /// What to call instead.
        hint: &'static str,
    },
    /// The saved typed state (or pause) does not deserialize as this agent's state type, or
    /// the state does not serialize.
    #[error("the state of thread `{thread_id}` {action} as `{ty}`: {reason}")]
    StateFormat {
        /// The thread.
        thread_id: String,
        /// `does not serialize` / `does not deserialize`.
        action: &'static str,
        /// The state type.
        ty: &'static str,
        /// serde's message.
        reason: String,
        /// serde's error.
        #[source]
        source: serde_json::Error,
    },
    /// Messages the thread already saved were removed or replaced during the run (e.g. by a
    /// middleware that rewrites the history); a thread's messages are append-only.
    #[error(
        "the run removed messages thread `{thread_id}` had already saved ({saved} saved, {now} now); threads store messages append-only, so history-rewriting middleware cannot be used with them unless it records a compaction (`BeforeModel::compact`)"
    )]
    Rewritten {
        /// The thread.
        thread_id: String,
        /// Messages saved.
        saved: usize,
        /// Messages in the run's transcript (without the system message).
        now: usize,
    },
    /// The checkpointer failed.
    #[error(transparent)]
    Persist(#[from] PersistError),
}

impl ThreadError {
    pub(crate) fn status(thread_id: &str, found: ThreadStatus, hint: &'static str) -> Self {
        ThreadError::Status {
            thread_id: thread_id.to_string(),
            found,
            hint,
        }
    }

    pub(crate) fn state<S>(thread_id: &str, action: &'static str, e: serde_json::Error) -> Self {
        ThreadError::StateFormat {
            thread_id: thread_id.to_string(),
            action,
            ty: std::any::type_name::<S>(),
            reason: e.to_string(),
            source: e,
        }
    }
}
