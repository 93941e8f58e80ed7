//! Ending a run whose future was dropped (a client that went away): [`Thread::cancel`] writes
//! the thread idle again, every call of an answer in flight answered, and records that the
//! run was cancelled.

use std::collections::HashSet;

use super::journal::{RunInfo, RunStatus};
use super::{Thread, ThreadError, ThreadState};
use crate::agent::toolset::Toolset;
use crate::message::{ContentBlock, Message, ToolResultMessage};
use crate::output::OutputSpec;
use crate::persist::{Checkpoint, CheckpointWrite, PersistError};

/// What the model reads for a call whose run was cancelled before its result was saved.
pub const CANCELLED: &str = "the call did not complete: the run was cancelled before its result was saved, so it may or may not have taken effect";

impl<T, O, C, S> Thread<'_, T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    /// Ends the run going on in the thread without running anything more: for a run whose
    /// future was dropped (its caller went away). Everything the run saved stays; the calls of
    /// an answer in flight whose results were not saved are answered with [`CANCELLED`], so
    /// the next run starts from a complete transcript; the thread is idle again and
    /// [`Thread::was_cancelled`] says so until the next run ends.
    ///
    /// Returns whether there was a run to cancel (a thread that is new, idle or paused is
    /// left as it is). Call it only when no run of the thread is going on in any process:
    /// a run still going saves on top of it and fails with a conflict.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use agentry::agent::{AgentBuilder, NoTools, ThreadStatus};
    /// use agentry::persist::InMemoryCheckpointer;
    /// use agentry::testing::{ScriptedModel, Turn};
    /// use futures::StreamExt;
    ///
    /// let model = ScriptedModel::new([Turn::text("Hello")]).yielding();
    /// let agent = AgentBuilder::<_, _, (), ()>::new(model, NoTools)
    ///     .checkpointer(InMemoryCheckpointer::default())
    ///     .build();
    /// let thread = agent.thread("t");
    /// let mut stream = thread.stream("Hi", ());
    /// stream.next().await; // the input is saved; the client goes away
    /// drop(stream);
    /// assert_eq!(thread.status().await.unwrap(), ThreadStatus::Running);
    /// assert!(thread.cancel().await.unwrap());
    /// assert_eq!(thread.status().await.unwrap(), ThreadStatus::Idle);
    /// assert!(thread.was_cancelled().await.unwrap());
    /// assert_eq!(thread.messages().await.unwrap().len(), 1); // the input is kept
    /// # });
    /// ```
    pub async fn cancel(&self) -> Result<bool, ThreadError>
    where
        S: ThreadState,
    {
        let checkpointer = self.checkpointer()?;
        // A save of the dropped run may land between the read and the write: read again.
        for _ in 0..3 {
            let Some(latest) = checkpointer.latest(&self.id).await? else {
                return Ok(false);
            };
            let info = RunInfo::read(&self.id, &latest.counters)?;
            if info.status != RunStatus::Running {
                return Ok(false);
            }
            let new = answer_in_flight(&latest, &info);
            let done = RunInfo {
                run_start: info.run_start,
                cancelled: true,
                view: info.view.clone(),
                ..RunInfo::default()
            };
            let counters = serde_json::to_value(&done).unwrap_or_default();
            let mut write = CheckpointWrite::next(&self.id, latest.step, &new, &latest.state)
                .usage(latest.usage)
                .counters(&counters);
            if let Some(lease) = &self.lease {
                write = write.lease(lease);
            }
            match checkpointer.put(write).await {
                Ok(_) => {
                    tracing::debug!(thread = %self.id, step = latest.step + 1, "run cancelled");
                    return Ok(true);
                }
                Err(PersistError::Conflict { .. }) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(ThreadError::status(
            &self.id,
            super::ThreadStatus::Running,
            "a run is still saving: it was not cancelled",
        ))
    }

    /// Whether the thread's last run was cancelled ([`Thread::cancel`]).
    pub async fn was_cancelled(&self) -> Result<bool, ThreadError>
    where
        S: ThreadState,
    {
        let latest = self.checkpointer()?.latest(&self.id).await?;
        match latest {
            None => Ok(false),
            Some(c) => Ok(RunInfo::read(&self.id, &c.counters)?.cancelled),
        }
    }
}

/// The results to append for the answer whose calls were running: those that completed (kept
/// in the run info) and [`CANCELLED`] for the others. Empty when no answer is in flight.
fn answer_in_flight(latest: &Checkpoint, info: &RunInfo) -> Vec<Message> {
    if info.answer.is_none() {
        return Vec::new();
    }
    let messages = &latest.messages;
    let answered = messages
        .iter()
        .rev()
        .take_while(|m| matches!(m, Message::Tool(_)))
        .count();
    let at = messages.len() - answered;
    let Some(Message::Assistant(answer)) = at.checked_sub(1).map(|i| &messages[i]) else {
        return Vec::new();
    };
    let mut have: HashSet<&str> = messages[at..]
        .iter()
        .filter_map(|m| match m {
            Message::Tool(r) => Some(r.call_id.as_str()),
            _ => None,
        })
        .collect();
    let mut new = Vec::new();
    for result in &info.completed {
        if have.insert(result.call_id.as_str()) {
            new.push(Message::Tool(result.clone()));
        }
    }
    for call in &answer.tool_calls {
        if !have.contains(call.id.as_str()) {
            new.push(Message::Tool(ToolResultMessage {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: vec![ContentBlock::text(CANCELLED)],
                is_error: true,
            }));
        }
    }
    new
}
