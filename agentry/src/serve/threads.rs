//! Who owns which thread, and which threads have a run going on in this process.
//!
//! Ownership is kept in the agent's checkpointer, beside the threads, in two kinds of
//! bookkeeping threads (their ids start with `serve:`, which a client's thread id cannot):
//! - `serve:owner:{thread}`: one checkpoint whose state is `{"owner": user}`, written once
//!   (the first writer wins: the write of a thread that exists is refused by the
//!   checkpointer);
//! - `serve:user:{user}`: the user's threads, one user message per thread (append-only, so
//!   listing reads one transcript);
//! - `serve:denied:{thread}`: the tool results of the thread whose call a reviewer rejected,
//!   one user message `{n}:{call_id}` per result (the `n`th result of that call id in the
//!   thread: ids repeat), append-only, so the history shows them denied as the stream did.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::ServeError;
use crate::message::Message;
use crate::persist::{CheckpointWrite, Checkpointer, PersistError};

const OWNER: &str = "serve:owner:";
const USER: &str = "serve:user:";
const DENIED: &str = "serve:denied:";

/// Thread ids a client may use: 1 to 200 bytes of ASCII letters, digits, `-`, `_` and `.`.
pub(crate) fn check_thread_id(id: &str) -> Result<(), ServeError> {
    let ok = !id.is_empty()
        && id.len() <= 200
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(ServeError::BadRequest(format!(
            "thread id `{}` is not 1 to 200 ASCII letters, digits, `-`, `_` or `.`",
            id.chars().take(64).collect::<String>()
        )))
    }
}

/// The owners of threads, in a checkpointer.
#[derive(Clone)]
pub(crate) struct Owners {
    checkpointer: Arc<dyn Checkpointer>,
}

/// Who a thread belongs to, for a request.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Ownership {
    /// The caller's.
    Mine,
    /// Nobody's yet: an unknown thread.
    Unknown,
}

impl Owners {
    pub(crate) fn new(checkpointer: Arc<dyn Checkpointer>) -> Self {
        Owners { checkpointer }
    }

    pub(crate) fn checkpointer(&self) -> &Arc<dyn Checkpointer> {
        &self.checkpointer
    }

    async fn owner(&self, thread_id: &str) -> Result<Option<String>, ServeError> {
        let record = self
            .checkpointer
            .latest(&format!("{OWNER}{thread_id}"))
            .await
            .map_err(|e| ServeError::Thread(e.into()))?;
        Ok(record.and_then(|c| c.state["owner"].as_str().map(str::to_owned)))
    }

    /// Whether `user` may use `thread_id`: 403 when it belongs to someone else.
    pub(crate) async fn check(&self, thread_id: &str, user: &str) -> Result<Ownership, ServeError> {
        match self.owner(thread_id).await? {
            None => Ok(Ownership::Unknown),
            Some(owner) if owner == user => Ok(Ownership::Mine),
            Some(_) => Err(ServeError::Forbidden(thread_id.to_owned())),
        }
    }

    /// Gives `thread_id` to `user`, unless it has an owner already (then: as `check`).
    pub(crate) async fn claim(&self, thread_id: &str, user: &str) -> Result<(), ServeError> {
        let record = format!("{OWNER}{thread_id}");
        let state = json!({ "owner": user });
        match self
            .checkpointer
            .put(CheckpointWrite::first(&record, &[], &state))
            .await
        {
            Ok(_) => self.index(thread_id, user).await,
            // Created meanwhile (or before): whose is it?
            Err(PersistError::Conflict { .. }) => match self.check(thread_id, user).await? {
                Ownership::Mine => Ok(()),
                Ownership::Unknown => Err(ServeError::Thread(
                    PersistError::Invalid {
                        what: "thread owner",
                        reason: format!("the owner record of `{thread_id}` is unreadable"),
                    }
                    .into(),
                )),
            },
            Err(e) => Err(ServeError::Thread(e.into())),
        }
    }

    /// Appends `thread_id` to `user`'s list of threads.
    async fn index(&self, thread_id: &str, user: &str) -> Result<(), ServeError> {
        let list = format!("{USER}{user}");
        self.append(&list, &[Message::user(thread_id)], "thread list")
            .await
    }

    /// Records that a reviewer rejected the calls of the results `keys` of `thread_id`.
    pub(crate) async fn deny(
        &self,
        thread_id: &str,
        call_ids: &[String],
    ) -> Result<(), ServeError> {
        let messages: Vec<Message> = call_ids
            .iter()
            .map(|id| Message::user(id.as_str()))
            .collect();
        self.append(&format!("{DENIED}{thread_id}"), &messages, "denied calls")
            .await
    }

    /// The keys of the results of `thread_id` whose call a reviewer rejected.
    pub(crate) async fn denied(&self, thread_id: &str) -> Result<HashSet<String>, ServeError> {
        let latest = self
            .checkpointer
            .latest(&format!("{DENIED}{thread_id}"))
            .await
            .map_err(|e| ServeError::Thread(e.into()))?;
        Ok(latest
            .map(|c| c.messages)
            .unwrap_or_default()
            .iter()
            .map(Message::text)
            .collect())
    }

    /// Appends `messages` to the bookkeeping thread `list`.
    async fn append(
        &self,
        list: &str,
        messages: &[Message],
        what: &'static str,
    ) -> Result<(), ServeError> {
        let state = Value::Null;
        // Two writers at once (two threads created by one user) race on the list: the loser
        // reads again.
        for _ in 0..8 {
            let latest = self
                .checkpointer
                .latest(list)
                .await
                .map_err(|e| ServeError::Thread(e.into()))?;
            let write = match &latest {
                None => CheckpointWrite::first(list, messages, &state),
                Some(c) => CheckpointWrite::next(list, c.step, messages, &state),
            };
            match self.checkpointer.put(write).await {
                Ok(_) => return Ok(()),
                Err(PersistError::Conflict { .. }) => continue,
                Err(e) => return Err(ServeError::Thread(e.into())),
            }
        }
        Err(ServeError::Thread(
            PersistError::Invalid {
                what,
                reason: format!("`{list}` kept changing"),
            }
            .into(),
        ))
    }

    /// `user`'s threads, the newest first, at most `limit`.
    pub(crate) async fn list(&self, user: &str, limit: usize) -> Result<Vec<String>, ServeError> {
        let latest = self
            .checkpointer
            .latest(&format!("{USER}{user}"))
            .await
            .map_err(|e| ServeError::Thread(e.into()))?;
        Ok(latest
            .map(|c| c.messages)
            .unwrap_or_default()
            .iter()
            .rev()
            .take(limit)
            .map(Message::text)
            .collect())
    }
}

/// The threads with a run going on in this process.
#[derive(Clone, Default)]
pub(crate) struct Running {
    ids: Arc<Mutex<HashSet<String>>>,
}

impl Running {
    /// Marks `thread_id` running; `None` when a run is going on already.
    pub(crate) fn claim(&self, thread_id: &str) -> Option<RunSlot> {
        let mut ids = self.ids.lock().unwrap_or_else(|e| e.into_inner());
        ids.insert(thread_id.to_owned()).then(|| RunSlot {
            running: self.clone(),
            thread_id: thread_id.to_owned(),
        })
    }

    /// Whether a run of `thread_id` is going on.
    pub(crate) fn contains(&self, thread_id: &str) -> bool {
        let ids = self.ids.lock().unwrap_or_else(|e| e.into_inner());
        ids.contains(thread_id)
    }

    /// How many runs are going on.
    pub(crate) fn len(&self) -> usize {
        self.ids.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// A thread's run going on; the thread is free again when it is dropped.
pub(crate) struct RunSlot {
    running: Running,
    thread_id: String,
}

impl Drop for RunSlot {
    fn drop(&mut self) {
        let mut ids = self.running.ids.lock().unwrap_or_else(|e| e.into_inner());
        ids.remove(&self.thread_id);
    }
}
