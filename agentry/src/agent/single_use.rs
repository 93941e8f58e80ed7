//! Single use of a pause: an agent with a checkpointer records each resumed pause's id, and
//! refuses to resume it again; an agent with a store and no checkpointer records each pause
//! when it is made, and removes the record when it is resumed.

use futures::future::{self, Either};
use serde_json::Value;

use super::builder::Agent;
use super::resume::Start;
use crate::persist::{CheckpointWrite, PersistError};
use crate::run::{Outcome, PartialRun, ResumeError, RunError, RunErrorKind, ThreadError};

/// Where an agent with a store and no checkpointer records the pauses not resumed yet (the
/// key is the pause's id). A pause that is never resumed leaves its record: delete it when
/// you drop the pause.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use agentry::agent::PAUSE_STORE_NAMESPACE;
///
/// let store = agentry::Store::in_memory();
/// // A pause given up on: its record goes too.
/// store.delete(&PAUSE_STORE_NAMESPACE, "0123abcd").await.unwrap();
/// assert_eq!(PAUSE_STORE_NAMESPACE, ["agentry", "pauses"]);
/// # });
/// ```
pub const PAUSE_STORE_NAMESPACE: [&str; 2] = ["agentry", "pauses"];

/// A resume of a thread's own pause: the thread's checkpointer, the thread and the paused
/// step.
pub(crate) struct InThread<'a> {
    pub(crate) checkpointer: &'a std::sync::Arc<dyn crate::persist::Checkpointer>,
    pub(crate) thread_id: &'a str,
    pub(crate) step: u64,
}

/// The thread that records that pause `id` was resumed.
pub(crate) fn marker_thread(id: &str) -> String {
    format!("agentry-resumed-pause-{id}")
}

impl<T, O, C, S> Agent<T, O, C, S> {
    /// Records a new pause in the store, when the agent has a store and no checkpointer.
    ///
    /// Not an `async fn`: a pause with nothing to record (the common case) is returned as it
    /// is, without a future holding it; the store's write is boxed.
    pub(super) fn register_pause<T2: Send + 'static>(
        &self,
        paused: Result<Outcome<T2, S>, RunError>,
    ) -> impl Future<Output = Result<Outcome<T2, S>, RunError>> + Send + '_
    where
        S: Send + Sync + 'static,
    {
        let (None, Some(store)) = (&self.parts.checkpointer, &self.parts.store) else {
            return Either::Left(future::ready(paused));
        };
        let (pause, id) = match paused {
            Ok(Outcome::Paused(pause)) => match pause.id.clone() {
                Some(id) => (pause, id),
                None => return Either::Left(future::ready(Ok(Outcome::Paused(pause)))),
            },
            other => return Either::Left(future::ready(other)),
        };
        Either::Right(Box::pin(async move {
            let record = serde_json::json!({ "turn": pause.answer.turn });
            match store.put(&PAUSE_STORE_NAMESPACE, &id, record).await {
                Ok(()) => Ok(Outcome::Paused(pause)),
                Err(error) => Err(RunError::new(RunErrorKind::Store(error), pause.partial())),
            }
        }))
    }

    /// Records that pause `id` is resumed, before anything of it runs. With a checkpointer:
    /// the first checkpoint of its marker thread, a write that succeeds once (every
    /// checkpointer refuses a first checkpoint of a thread that exists, atomically). With a
    /// store and no checkpointer: removing the pause's record, which one remover sees. A
    /// pause without an id, or an agent with neither, records nothing.
    ///
    /// `in_thread`: the resume of a thread's own pause. Its marker names the thread and the
    /// paused step, and a marker of the same thread and step does not refuse it: a resume of
    /// the thread that stopped before its first save ran nothing (the thread's first save,
    /// before any tool runs, is refused to all but one resume of that step).
    pub(super) async fn consume_pause(
        &self,
        id: Option<&str>,
        start: &Start<S>,
        in_thread: Option<InThread<'_>>,
    ) -> Result<(), RunError> {
        let Some(id) = id else {
            return Ok(());
        };
        let already = || RunErrorKind::Resume(ResumeError::AlreadyResumed { id: id.to_string() });
        let checkpointer = in_thread
            .as_ref()
            .map(|t| t.checkpointer)
            .or(self.parts.checkpointer.as_ref());
        let kind = match (checkpointer, &self.parts.store) {
            (Some(checkpointer), _) => {
                let thread = marker_thread(id);
                let by = match &in_thread {
                    Some(t) => serde_json::json!({ "thread_id": t.thread_id, "step": t.step }),
                    None => Value::Null,
                };
                match checkpointer
                    .put(CheckpointWrite::first(&thread, &[], &by))
                    .await
                {
                    Ok(_) => return Ok(()),
                    Err(PersistError::Conflict { .. }) if in_thread.is_some() => {
                        match checkpointer.get(&thread, 1).await {
                            Ok(Some(marker)) if marker.state == by => return Ok(()),
                            Ok(_) => already(),
                            Err(error) => RunErrorKind::Thread(ThreadError::Persist(error)),
                        }
                    }
                    Err(PersistError::Conflict { .. }) => already(),
                    Err(error) => RunErrorKind::Thread(ThreadError::Persist(error)),
                }
            }
            (None, Some(store)) => match store.delete(&PAUSE_STORE_NAMESPACE, id).await {
                Ok(true) => return Ok(()),
                Ok(false) => already(),
                Err(error) => RunErrorKind::Store(error),
            },
            (None, None) => return Ok(()),
        };
        let partial = match start {
            Start::Resume { snapshot, .. } => PartialRun {
                messages: snapshot.messages.clone(),
                usage: snapshot.usage,
                request_usage: snapshot.request_usage.clone(),
                steps: snapshot.steps.clone(),
            },
            Start::Fresh { .. } => PartialRun::default(),
        };
        Err(RunError::new(kind, partial))
    }
}
