//! Saving a run's progress to its thread: the [`Journal`] the driver calls at each step, and
//! the run's bookkeeping stored beside the machine's counters ([`RunInfo`]).

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ThreadError;
use super::heartbeat::Keeper;
use crate::agent::machine::{Counters, Machine};
use crate::agent::record::Record;
use crate::message::{Message, ToolResultMessage};
use crate::persist::{CheckpointMeta, CheckpointWrite, Checkpointer, Lease, PersistError};
use crate::run::Outcome;
use crate::run::{PartialRun, RunError, RunErrorKind};
use crate::usage::Usage;

/// Where in the loop the driver saves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SavePoint {
    /// The input is in the transcript, before the first request.
    Started,
    /// A model answer whose tool calls are about to run.
    Answered,
    /// Some calls of that answer have their results (saved as each completes, or after a
    /// group of calls); the answer is still in flight.
    CallDone,
    /// Every call of that answer has its result.
    ToolsDone,
    /// A `before_model` hook compacted the transcript
    /// ([`Compacted`](crate::middleware::Compacted)): the compacted view is saved.
    Compacted,
}

/// Saves a run's progress; the driver calls it at each [`SavePoint`]. Erased over the state's
/// serializer so the driver needs no `Serialize` bound.
///
/// `may_compact` says whether a middleware's `before_model` hook may run before the next
/// request (and so compact the transcript): a run saving only its end then saves at the
/// points a request follows too, so a compaction never summarizes messages the thread does
/// not hold.
pub(crate) trait Journal<S>: Send {
    fn save<'a>(
        &'a mut self,
        point: SavePoint,
        record: &'a Record,
        state: &'a S,
        machine: &'a Machine,
        may_compact: bool,
    ) -> BoxFuture<'a, Result<(), RunErrorKind>>;
}

/// What a run was doing at a checkpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RunStatus {
    /// No run going on (also what checkpoints written without an agent read as).
    #[default]
    Idle,
    /// A run was going on.
    Running,
    /// A run stopped for review; the checkpoint's `pending` holds the pause.
    Paused,
}

/// The answer whose calls were running, kept to replay it after a crash.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct AnswerInfo {
    pub(crate) usage: Usage,
    pub(crate) model: String,
}

/// A thread's compacted view: what a run sees instead of the whole saved history — the
/// summary, then the thread's messages from `start` on. The history keeps every message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ViewInfo {
    /// The first message of the thread the view keeps.
    pub(crate) start: usize,
    /// The summary of the messages before `start` (and of any earlier summary).
    pub(crate) summary: Message,
}

impl ViewInfo {
    /// The view of `messages` (the thread's, oldest first): the summary, then the kept ones.
    pub(crate) fn apply(&self, mut messages: Vec<Message>) -> Vec<Message> {
        let start = self.start.min(messages.len());
        messages.splice(..start, [self.summary.clone()]);
        messages
    }

    /// The position in the view of the thread's message `at` (the summary for one before
    /// the view).
    pub(crate) fn position(&self, at: usize) -> usize {
        at.saturating_sub(self.start) + 1
    }
}

/// The thread's message count when the run's transcript (without its system message) holds
/// `visible` messages in `view`.
pub(crate) fn thread_len(visible: usize, view: Option<&ViewInfo>) -> usize {
    match view {
        Some(v) => v.start + visible.saturating_sub(1),
        None => visible,
    }
}

/// The checkpoint's `counters` document for runs of an agent.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct RunInfo {
    #[serde(default)]
    pub(crate) status: RunStatus,
    /// The machine's counters of the run.
    #[serde(default)]
    pub(crate) machine: Counters,
    /// Where the run's messages start in the thread (its input).
    #[serde(default)]
    pub(crate) run_start: usize,
    /// Set while an answer's calls run: the thread's last message is that answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) answer: Option<AnswerInfo>,
    /// Results of the answer's calls that completed before the rest of their group.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) completed: Vec<ToolResultMessage>,
    /// A pause at tool questions: how many of the thread's messages are the pause's (the
    /// thread goes on to hold the paused answer, and results saved before the pause, which
    /// the resumed run replays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) paused_at: Option<usize>,
    /// The last run was cancelled ([`Thread::cancel`](super::Thread::cancel)).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) cancelled: bool,
    /// The thread's compacted view, when a summarizing middleware compacted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) view: Option<ViewInfo>,
}

impl RunInfo {
    /// Reads the counters of thread `thread_id`'s checkpoint. No counters (a checkpoint
    /// written without an agent) and an object without a status (format 1's `{"turns": n}`)
    /// read as an idle thread; anything else that does not decode is
    /// [`PersistError::Corrupt`](crate::persist::PersistError::Corrupt): reading it as idle
    /// would let a new run start over a running or paused one and lose its pause.
    pub(crate) fn read(thread_id: &str, counters: &Value) -> Result<RunInfo, PersistError> {
        if counters.is_null() {
            return Ok(RunInfo::default());
        }
        RunInfo::deserialize(counters)
            .map_err(|e| PersistError::corrupt_in(thread_id, "run status", e))
    }
}

/// A run's journal on one thread.
pub(crate) struct ThreadJournal {
    pub(crate) checkpointer: Arc<dyn Checkpointer>,
    pub(crate) thread_id: String,
    pub(crate) lease: Option<Lease>,
    /// The thread's newest step (`None`: a new thread).
    pub(crate) after: Option<u64>,
    /// Messages the thread holds (the transcript without its system message).
    pub(crate) saved: usize,
    pub(crate) run_start: usize,
    /// A resumed or recovered run: the thread already says it is running or paused.
    pub(crate) skip_start: bool,
    /// The newest saved state, for a run that fails.
    pub(crate) last_state: Value,
    pub(crate) answer: Option<AnswerInfo>,
    /// Whether a transcript shorter than the thread's is saved without new messages: a run
    /// that replays messages the thread holds already (the answer of a pause at questions).
    pub(crate) behind_ok: bool,
    /// The run's lease as its heartbeat keeps it: no write once it cannot be kept.
    pub(crate) keeper: Option<Arc<Keeper>>,
    /// The checkpoint written last.
    pub(crate) last: Option<CheckpointMeta>,
    /// The thread's compacted view (carried into every checkpoint).
    pub(crate) view: Option<ViewInfo>,
    /// Whether the loop's steps are saved, or only the run's end (and compactions).
    pub(crate) durability: super::Durability,
}

pub(super) fn system_offset(messages: &[Message]) -> usize {
    usize::from(matches!(messages.first(), Some(Message::System { .. })))
}

impl ThreadJournal {
    /// Appends the transcript's unsaved messages and saves one checkpoint.
    async fn write(
        &mut self,
        messages: &[Message],
        state: Value,
        usage: Usage,
        mut info: RunInfo,
        pending: Option<Value>,
    ) -> Result<(), ThreadError> {
        let offset = system_offset(messages);
        // The transcript shows the thread's messages, or its compacted view.
        let now = thread_len(messages.len() - offset, self.view.as_ref());
        let shown = messages.len() - offset;
        let held = shown + self.saved - now;
        let behind = now < self.saved && self.behind_ok;
        if now < self.saved && !behind {
            return Err(ThreadError::Rewritten {
                thread_id: self.thread_id.clone(),
                saved: self.saved,
                now,
            });
        }
        info.view = self.view.clone();
        let counters = serde_json::to_value(&info).unwrap_or_default();
        let write = CheckpointWrite {
            thread_id: &self.thread_id,
            after: self.after,
            new_messages: if behind {
                &[]
            } else {
                &messages[offset + held..]
            },
            state: &state,
            usage,
            counters: &counters,
            pending: pending.as_ref(),
            lease: self.lease.as_ref(),
        };
        if let Some(keeper) = &self.keeper {
            keeper.check()?;
        }
        let meta = self.checkpointer.put(write).await?;
        tracing::trace!(thread = %self.thread_id, step = meta.step, "checkpoint saved");
        self.after = Some(meta.step);
        self.last = Some(meta);
        self.saved = self.saved.max(now);
        self.last_state = state;
        Ok(())
    }

    /// Takes in the compaction `record` reports: the new view, checked to cover only the
    /// thread's oldest saved messages.
    fn compacted(&mut self, record: &Record) -> Result<(), ThreadError> {
        let Some(compacted) = record.compacted.as_deref().copied() else {
            return Ok(());
        };
        let messages = &record.messages;
        let offset = system_offset(messages);
        // Transcript positions, before the compaction, of the thread's messages.
        let replaced = compacted.end - compacted.start;
        let start = match &self.view {
            Some(view) => view.start + replaced - 1,
            None => replaced,
        };
        let rewritten = || ThreadError::Rewritten {
            thread_id: self.thread_id.clone(),
            saved: self.saved,
            now: thread_len(messages.len() - offset, self.view.as_ref()),
        };
        if compacted.start != offset || replaced == 0 || start > self.saved {
            return Err(rewritten());
        }
        let Some(summary) = messages.get(compacted.start).cloned() else {
            return Err(rewritten());
        };
        tracing::debug!(thread = %self.thread_id, view_start = start, "compaction checkpoint");
        self.view = Some(ViewInfo { start, summary });
        Ok(())
    }

    /// Saves how the run ended: idle after a result or a failure, paused with the pause.
    pub(crate) async fn finish<T, S: Serialize>(
        &mut self,
        outcome: Result<Outcome<T, S>, RunError>,
    ) -> Result<Outcome<T, S>, RunError> {
        match outcome {
            Ok(Outcome::Finished(result)) => {
                let saved = match serde_json::to_value(&result.state) {
                    Ok(state) => {
                        let info = RunInfo {
                            run_start: self.run_start,
                            ..RunInfo::default()
                        };
                        self.write(&result.messages, state, result.usage, info, None)
                            .await
                    }
                    Err(e) => Err(ThreadError::state::<S>(
                        &self.thread_id,
                        "does not serialize",
                        e,
                    )),
                };
                match saved {
                    Ok(()) => Ok(Outcome::Finished(result)),
                    Err(error) => Err(RunError::new(
                        RunErrorKind::Thread(error),
                        PartialRun {
                            messages: result.messages.into_vec(),
                            usage: result.usage,
                            request_usage: result.request_usage,
                            steps: result.steps,
                        },
                    )),
                }
            }
            Ok(Outcome::Paused(mut pause)) => {
                // The thread holds the messages; the pending pause holds the rest.
                let messages = std::mem::take(&mut pause.snapshot.messages);
                let encoded = serde_json::to_value(&pause)
                    .and_then(|p| serde_json::to_value(&pause.snapshot.state).map(|s| (p, s)));
                pause.snapshot.messages = messages;
                let saved = match encoded {
                    Ok((pending, state)) => {
                        let shown =
                            pause.snapshot.messages.len() - system_offset(&pause.snapshot.messages);
                        let held = thread_len(shown, self.view.as_ref());
                        // A pause at questions is the run before an answer the thread holds.
                        let paused_at = (held < self.saved).then_some(held);
                        self.behind_ok |= paused_at.is_some();
                        let info = RunInfo {
                            status: RunStatus::Paused,
                            machine: pause.snapshot.counters.clone(),
                            run_start: self.run_start,
                            answer: None,
                            completed: Vec::new(),
                            paused_at,
                            cancelled: false,
                            view: None,
                        };
                        let usage = pause.snapshot.usage;
                        self.write(&pause.snapshot.messages, state, usage, info, Some(pending))
                            .await
                    }
                    Err(e) => Err(ThreadError::state::<S>(
                        &self.thread_id,
                        "does not serialize",
                        e,
                    )),
                };
                match saved {
                    Ok(()) => Ok(Outcome::Paused(pause)),
                    Err(error) => Err(RunError::new(RunErrorKind::Thread(error), pause.partial())),
                }
            }
            Err(error) if matches!(error.kind(), RunErrorKind::Thread(_)) => Err(error),
            Err(error) => {
                // The transcript up to the failure, every call answered; the state as last
                // saved (a failed run hands no state back).
                let info = RunInfo {
                    run_start: self.run_start,
                    ..RunInfo::default()
                };
                let state = self.last_state.clone();
                let usage = error.partial().usage;
                if let Err(save) = self.write(error.messages(), state, usage, info, None).await {
                    tracing::warn!(thread = %self.thread_id, error = %save, "the failed run could not be saved; the thread stays where it was");
                }
                Err(error)
            }
        }
    }
}

impl<S: Serialize + Send + Sync> Journal<S> for ThreadJournal {
    fn save<'a>(
        &'a mut self,
        point: SavePoint,
        record: &'a Record,
        state: &'a S,
        machine: &'a Machine,
        may_compact: bool,
    ) -> BoxFuture<'a, Result<(), RunErrorKind>> {
        let steps = self.durability.saves_steps();
        let saved_here = match point {
            // The points a model request follows.
            SavePoint::Started => !self.skip_start && (steps || may_compact),
            SavePoint::ToolsDone => steps || may_compact,
            // A compaction rewrites what the thread shows: saved in every mode, so the run's
            // end appends to the view it describes.
            SavePoint::Compacted => true,
            SavePoint::Answered | SavePoint::CallDone => steps,
        };
        if !saved_here {
            return futures::future::ready(Ok(())).boxed();
        }
        if point == SavePoint::Compacted
            && let Err(error) = self.compacted(record)
        {
            return futures::future::ready(Err(RunErrorKind::Thread(error))).boxed();
        }
        let state = match serde_json::to_value(state) {
            Ok(state) => state,
            Err(e) => {
                let error = ThreadError::state::<S>(&self.thread_id, "does not serialize", e);
                return futures::future::ready(Err(RunErrorKind::Thread(error))).boxed();
            }
        };
        self.answer = match point {
            SavePoint::Answered => record.request_usage.last().map(|r| AnswerInfo {
                usage: r.usage,
                model: r.model.clone(),
            }),
            // The answer stays in flight: its calls without results are found on recovery.
            SavePoint::CallDone | SavePoint::Compacted => self.answer.take(),
            SavePoint::Started | SavePoint::ToolsDone => None,
        };
        let info = RunInfo {
            status: RunStatus::Running,
            machine: machine.counters(),
            run_start: self.run_start,
            answer: self.answer.clone(),
            completed: match point {
                SavePoint::CallDone => record.completed.clone(),
                _ => Vec::new(),
            },
            paused_at: None,
            cancelled: false,
            view: None,
        };
        async move {
            self.write(&record.messages, state, record.usage, info, None)
                .await
                .map_err(RunErrorKind::Thread)
        }
        .boxed()
    }
}
