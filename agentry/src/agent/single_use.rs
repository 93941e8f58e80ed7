//! Single use of a pause: an agent with a checkpointer records each resumed pause's id, and
//! refuses to resume it again.

use serde_json::Value;

use super::builder::Agent;
use super::resume::Start;
use crate::persist::{CheckpointWrite, PersistError};
use crate::run::{PartialRun, ResumeError, RunError, RunErrorKind, ThreadError};

/// The thread that records that pause `id` was resumed.
pub(crate) fn marker_thread(id: &str) -> String {
    format!("agentry-resumed-pause-{id}")
}

impl<T, O, C, S> Agent<T, O, C, S> {
    /// Records that pause `id` is resumed, before anything of it runs: the first checkpoint
    /// of its marker thread, a write that succeeds once (every checkpointer refuses a first
    /// checkpoint of a thread that exists, atomically). A pause without an id, or an agent
    /// without a checkpointer, records nothing.
    pub(super) async fn consume_pause(
        &self,
        id: Option<&str>,
        start: &Start<S>,
    ) -> Result<(), RunError> {
        let (Some(id), Some(checkpointer)) = (id, &self.parts.checkpointer) else {
            return Ok(());
        };
        let thread = marker_thread(id);
        let state = Value::Null;
        let kind = match checkpointer
            .put(CheckpointWrite::first(&thread, &[], &state))
            .await
        {
            Ok(_) => return Ok(()),
            Err(PersistError::Conflict { .. }) => {
                RunErrorKind::Resume(ResumeError::AlreadyResumed { id: id.to_string() })
            }
            Err(error) => RunErrorKind::Thread(ThreadError::Persist(error)),
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
