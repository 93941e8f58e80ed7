//! A team's conversation kept in a checkpointer: [`TeamThread`].
//!
//! A thread's checkpoints hold its messages (what each run [added](super::TeamResult::added))
//! and, as the state, `{"agent": name}`: the agent that answered last, which answers the
//! thread's next message. A run is saved when it ends: a run that fails or is dropped
//! leaves the thread as it was (a dropped run can be recorded with [`TeamThread::cancel`]).

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};

use serde::Deserialize;

use super::handoff::{Driven, SavedPause, Team, TeamError, TeamResult};
use super::team_stream::TeamStream;
use crate::agent::{IntoContext, IntoInput};
use crate::agent::{PendingCall, ResumeError, RunError, RunErrorKind, ThreadError, ThreadStatus};
use crate::message::{AssistantMessage, Message};
use crate::middleware::{IntoDecision, ReviewRequest};
use crate::persist::{Checkpoint, CheckpointWrite, Checkpointer, PersistError};
use crate::run::collect_decisions;
use crate::usage::Usage;

/// The conversation `id` of a [`Team`], in the team's checkpointer
/// ([`TeamBuilder::checkpointer`](super::TeamBuilder::checkpointer)): each message continues
/// the history with the agent that answered last.
///
/// ```
/// use agentry::agent::{AgentBuilder, NoTools};
/// use agentry::multi::Team;
/// use agentry::persist::InMemoryCheckpointer;
/// use agentry::testing::{ScriptedModel, Turn};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let triage = ScriptedModel::new([Turn::tool_call("transfer_to_billing", serde_json::json!({}))]);
/// let billing = ScriptedModel::new([Turn::text("Fixed."), Turn::text("You're welcome.")]);
/// let team = Team::<String, ()>::builder()
///     .agent("triage", "Routes requests.", AgentBuilder::<_, _, (), ()>::new(triage, NoTools))
///     .agent("billing", "Answers billing questions.", AgentBuilder::<_, _, (), ()>::new(billing, NoTools))
///     .handoff("triage", "billing")
///     .checkpointer(InMemoryCheckpointer::default())
///     .build()
///     .unwrap();
/// let thread = team.thread("t-1");
/// thread.run("My invoice is wrong.", ()).await.unwrap();
/// assert_eq!(thread.load().await.unwrap().unwrap().agent, "billing");
/// // The next message goes to billing directly.
/// let run = thread.run("Thanks!", ()).await.unwrap();
/// assert_eq!((run.agent.as_str(), run.output.as_str()), ("billing", "You're welcome."));
/// assert!(run.handoffs.is_empty());
/// # });
/// ```
pub struct TeamThread<'a, O, C> {
    team: &'a Team<O, C>,
    id: String,
}

/// A team thread as saved: one read of its newest checkpoint.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct TeamThreadState {
    /// The messages, oldest first.
    pub messages: Vec<Message>,
    /// The agent that answers the next message (the one that answered last).
    pub agent: String,
    /// Whether the last run was dropped before it ended ([`TeamThread::cancel`]).
    pub cancelled: bool,
    /// The run waiting for review, when the last run paused ([`TeamThread::resume`] goes on
    /// with it).
    pub pending: Option<TeamPending>,
    /// When it was saved.
    pub updated_at: std::time::SystemTime,
}

/// A team thread's run waiting for review: the agent that paused and its calls.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct TeamPending {
    /// The agent that paused (it goes on when the run is resumed).
    pub agent: String,
    /// The calls of its paused answer, each with its review or question (the calls without
    /// either run when the run is resumed). Decide on each with its `call.id`.
    pub calls: Vec<PendingCall>,
    /// The paused answer without its calls (its text, say): not yet in the thread's
    /// messages.
    pub answer: AssistantMessage,
}

impl TeamPending {
    /// The reviews waiting for a decision, in the model's call order.
    pub fn reviews(&self) -> impl Iterator<Item = &ReviewRequest> {
        self.calls.iter().filter_map(|c| c.review.as_ref())
    }
}

/// What a paused team thread keeps in its checkpoint's `pending`.
#[derive(serde::Serialize, serde::Deserialize)]
struct Pending {
    run: SavedPause,
    /// The thread's usage before the run.
    base: Usage,
}

impl<O: Send + 'static, C: Send + Sync + 'static> Team<O, C> {
    /// The conversation `id` in the team's checkpointer (see [`TeamThread`]). Without a
    /// checkpointer, every call on it fails with [`ThreadError::NoCheckpointer`].
    pub fn thread(&self, id: impl Into<String>) -> TeamThread<'_, O, C> {
        TeamThread {
            team: self,
            id: id.into(),
        }
    }

    /// The checkpointer keeping the team's threads, if one was configured.
    pub fn checkpointer(&self) -> Option<&Arc<dyn Checkpointer>> {
        self.checkpointer.as_ref()
    }
}

fn invalid(id: &str, reason: String) -> ThreadError {
    PersistError::Invalid {
        what: "team thread",
        reason: format!("`{id}`: {reason}"),
    }
    .into()
}

impl<'a, O: Send + 'static, C: Send + Sync + 'static> TeamThread<'a, O, C> {
    /// The thread's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    fn checkpointer(&self) -> Result<&'a Arc<dyn Checkpointer>, ThreadError> {
        self.team
            .checkpointer
            .as_ref()
            .ok_or(ThreadError::NoCheckpointer)
    }

    /// Runs the team on the thread: the history, then `input`, answered by the agent that
    /// answered last (the team's first agent on a new thread); saved when it ends.
    ///
    /// When an agent stops for review (or at a tool's question, or at an external tool) the
    /// run is saved paused and ends with [`TeamError::Paused`]: the thread's
    /// [`pending`](TeamThreadState::pending) lists the calls, and [`TeamThread::resume`]
    /// goes on with the decisions. A paused thread refuses a new run
    /// ([`ThreadError::Status`]).
    pub fn run(
        &self,
        input: impl IntoInput,
        context: impl IntoContext<C>,
    ) -> BoxFuture<'a, Result<TeamResult<O>, TeamError>> {
        // Not an `async fn` (nor `resume`): the returned future's type does not name the
        // arguments, so a wrong one is one error at the call, not one more at each `.await`.
        self.stream(input, context).result().boxed()
    }

    /// Runs like [`TeamThread::run`], streaming the events (see [`Team::stream`]).
    pub fn stream(&self, input: impl IntoInput, context: impl IntoContext<C>) -> TeamStream<'a, O> {
        let input = input.into().messages().to_vec();
        let context = context.into_context();
        let (team, id) = (self.team, self.id.clone());
        let checkpointer = self.checkpointer();
        TeamStream::new(move |sender| {
            async move {
                let checkpointer = checkpointer?;
                let latest = checkpointer.latest(&id).await.map_err(ThreadError::from)?;
                let (history, start) = match &latest {
                    None => (Vec::new(), 0),
                    Some(c) if c.pending.is_some() => {
                        let hint = "a run waits for review: call `resume` with the decisions first";
                        return Err(ThreadError::status(&id, ThreadStatus::Paused, hint).into());
                    }
                    Some(c) => {
                        let agent = agent_of(&id, c)?;
                        let start = team.member_index(&agent).ok_or_else(|| {
                            invalid(&id, format!("its agent `{agent}` is not in the team"))
                        })?;
                        (c.messages.clone(), start)
                    }
                };
                let driven = team
                    .drive(history, input, start, context, Some(sender))
                    .await?;
                let base = latest.as_ref().map(|c| c.usage).unwrap_or_default();
                save(&**checkpointer, &id, latest.map(|c| c.step), base, driven).await
            }
            .boxed()
        })
    }

    /// Goes on from the run the thread saved paused, with one decision per reviewed call
    /// (or answer per question) of the agent that paused, by call id: the agent's own
    /// [`Agent::resume`](crate::agent::Agent::resume) checks them against its policy, its
    /// [`pause_key`](crate::agent::AgentBuilder::pause_key) seal and its own single use;
    /// then the team goes on (handoffs included) and the run is saved when it ends, or
    /// paused again. The result's `handoffs` and `usage` count the whole run, from before the
    /// pause; its `added` holds what came after the pause (the rest was saved at the pause).
    ///
    /// A pause resumes once: the resume takes it off the thread, atomically, before
    /// anything runs; a second resume fails with [`ThreadError::Status`] (or, racing,
    /// [`ResumeError::AlreadyResumed`](crate::agent::ResumeError::AlreadyResumed)). A
    /// resume whose decisions are refused (nothing ran) puts the pause back.
    ///
    /// ```
    /// use agentry::agent::{AgentBuilder, FnTool};
    /// use agentry::middleware::{Decision, DecisionKind};
    /// use agentry::middleware::HumanInTheLoop;
    /// use agentry::multi::{Team, TeamError};
    /// use agentry::persist::InMemoryCheckpointer;
    /// use agentry::testing::{ScriptedModel, Turn};
    /// use agentry::tool::{ToolDefinition, ToolOutput, ToolRuntime};
    /// use serde_json::json;
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let refund = FnTool::new(
    ///     ToolDefinition::new("refund", "Refunds.", json!({"type": "object"}), false),
    ///     |_: serde_json::Value, _: &ToolRuntime<(), ()>| async {
    ///         Ok::<_, agentry::tool::ToolCallError>(ToolOutput::text("done"))
    ///     },
    /// );
    /// let model = ScriptedModel::new([Turn::tool_call("refund", json!({})), Turn::text("Refunded.")]);
    /// let billing = AgentBuilder::<_, _, (), ()>::new(model, agentry::agent::NoTools)
    ///     .dyn_tool(refund)
    ///     .middleware(HumanInTheLoop::new().review("refund", DecisionKind::Approve));
    /// let team = Team::<String, ()>::builder()
    ///     .agent("billing", "Answers billing questions.", billing)
    ///     .checkpointer(InMemoryCheckpointer::default())
    ///     .build()
    ///     .unwrap();
    /// let thread = team.thread("t-1");
    /// let paused = thread.run("Refund me.", ()).await;
    /// assert!(matches!(paused, Err(TeamError::Paused { .. })));
    /// let pending = thread.load().await.unwrap().unwrap().pending.unwrap();
    /// let call_id = pending.calls[0].call.id.clone();
    /// let run = thread.resume([(call_id, Decision::Approve)], ()).await.unwrap();
    /// assert_eq!(run.output, "Refunded.");
    /// # });
    /// ```
    pub fn resume(
        &self,
        decisions: impl IntoIterator<Item: IntoDecision>,
        context: impl IntoContext<C>,
    ) -> BoxFuture<'a, Result<TeamResult<O>, TeamError>> {
        self.resume_stream(decisions, context).result().boxed()
    }

    /// Resumes like [`TeamThread::resume`], streaming the events.
    pub fn resume_stream(
        &self,
        decisions: impl IntoIterator<Item: IntoDecision>,
        context: impl IntoContext<C>,
    ) -> TeamStream<'a, O> {
        let decisions = collect_decisions(decisions);
        let context = context.into_context();
        let (team, id) = (self.team, self.id.clone());
        let checkpointer = self.checkpointer();
        TeamStream::new(move |sender| {
            async move {
                let checkpointer = checkpointer?;
                let latest = checkpointer.latest(&id).await.map_err(ThreadError::from)?;
                let Some((c, pending)) = latest.and_then(|c| c.pending.clone().map(|p| (c, p)))
                else {
                    let hint = "no run waits for review";
                    return Err(ThreadError::status(&id, ThreadStatus::Idle, hint).into());
                };
                let saved: Pending = serde_json::from_value(pending.clone())
                    .map_err(|e| invalid(&id, format!("its pause does not read: {e}")))?;
                // Take the pause off the thread before anything runs: one resume wins.
                let claim = CheckpointWrite::next(&id, c.step, &[], &c.state).usage(c.usage);
                let claimed = match checkpointer.put(claim).await {
                    Ok(step) => step,
                    Err(PersistError::Conflict { .. }) => {
                        let error = ResumeError::AlreadyResumed {
                            id: format!("{id}@{}", c.step),
                        };
                        let error = RunError::new(RunErrorKind::Resume(error), Default::default());
                        return Err(TeamError::Agent {
                            agent: saved.run.agent,
                            error: Box::new(error),
                        });
                    }
                    Err(error) => return Err(ThreadError::from(error).into()),
                };
                let agent = saved.run.agent.clone();
                let driven = team
                    .drive_resumed(saved.run, decisions, context, Some(sender))
                    .await;
                let driven = match driven {
                    Ok(driven) => driven,
                    Err(TeamError::Agent { agent: a, error })
                        if a == agent && matches!(error.kind(), RunErrorKind::Resume(_)) =>
                    {
                        // Refused before anything ran: the thread waits for review again.
                        let back = CheckpointWrite::next(&id, claimed.step, &[], &c.state)
                            .usage(c.usage)
                            .pending(&pending);
                        checkpointer.put(back).await.map_err(ThreadError::from)?;
                        return Err(TeamError::Agent { agent: a, error });
                    }
                    Err(error) => return Err(error),
                };
                save(&**checkpointer, &id, Some(claimed.step), saved.base, driven).await
            }
            .boxed()
        })
    }

    /// The thread as saved, in one read; `None` for a thread never run.
    pub async fn load(&self) -> Result<Option<TeamThreadState>, ThreadError> {
        let Some(latest) = self.checkpointer()?.latest(&self.id).await? else {
            return Ok(None);
        };
        Ok(Some(TeamThreadState {
            agent: agent_of(&self.id, &latest)?,
            cancelled: latest.counters["cancelled"] == Value::Bool(true),
            pending: match &latest.pending {
                None => None,
                Some(pending) => Some(pending_of(&self.id, pending)?),
            },
            updated_at: latest.created_at,
            messages: latest.messages,
        }))
    }

    /// Records that a run of the thread was dropped before it ended (its client went away):
    /// [`TeamThreadState::cancelled`] says so until the next run ends. Nothing changes in the
    /// history: a team run is saved only when it ends.
    pub async fn cancel(&self) -> Result<(), ThreadError> {
        let checkpointer = self.checkpointer()?;
        let counters = json!({ "cancelled": true });
        for _ in 0..3 {
            let latest = checkpointer.latest(&self.id).await?;
            let first = json!({ "agent": self.team.agents().next().unwrap_or_default() });
            let write = match &latest {
                None => CheckpointWrite::first(&self.id, &[], &first),
                Some(c) => CheckpointWrite::next(&self.id, c.step, &[], &c.state).usage(c.usage),
            };
            // A paused thread stays paused.
            let write = match latest.as_ref().and_then(|c| c.pending.as_ref()) {
                Some(pending) => write.pending(pending),
                None => write,
            };
            match checkpointer.put(write.counters(&counters)).await {
                Err(PersistError::Conflict { .. }) => continue,
                other => return other.map(|_| ()).map_err(Into::into),
            }
        }
        Err(invalid(&self.id, "it kept changing".to_owned()))
    }
}

/// The pause a team thread's checkpoint holds, as [`TeamPending`].
fn pending_of(id: &str, pending: &Value) -> Result<TeamPending, ThreadError> {
    let unreadable = |e: serde_json::Error| invalid(id, format!("its pause does not read: {e}"));
    let saved = Pending::deserialize(pending).map_err(unreadable)?;
    let pause = &saved.run.pause;
    let calls = Vec::<PendingCall>::deserialize(&pause["calls"]).map_err(unreadable)?;
    let answer = AssistantMessage::deserialize(&pause["answer"]["response"]["message"])
        .map_err(unreadable)?;
    Ok(TeamPending {
        agent: saved.run.agent,
        calls,
        answer,
    })
}

/// Saves how a run of thread `id` ended, after step `after` (none: a new thread): an answer,
/// or a pause; `base` is the thread's usage before the run.
async fn save<O>(
    checkpointer: &dyn Checkpointer,
    id: &str,
    after: Option<u64>,
    base: Usage,
    driven: Driven<O>,
) -> Result<TeamResult<O>, TeamError> {
    let (added, agent, usage, pending, ended) = match driven {
        Driven::Finished(result) => (
            result.added.clone(),
            result.agent.clone(),
            result.usage,
            None,
            Ok(result),
        ),
        Driven::Paused { added, saved } => {
            let ended = Err(TeamError::Paused {
                agent: saved.agent.clone(),
                tools: saved.tools.clone(),
            });
            let (agent, usage) = (saved.agent.clone(), saved.usage);
            let value = serde_json::to_value(Pending { run: saved, base })
                .map_err(|e| invalid(id, format!("its pause does not serialize: {e}")))?;
            (added, agent, usage, Some(value), ended)
        }
    };
    let state = json!({ "agent": agent });
    let write = match after {
        None => CheckpointWrite::first(id, &added, &state),
        Some(step) => CheckpointWrite::next(id, step, &added, &state),
    };
    let write = write.usage(base + usage);
    let write = match &pending {
        Some(pending) => write.pending(pending),
        None => write,
    };
    checkpointer.put(write).await.map_err(ThreadError::from)?;
    ended
}

/// The agent a checkpoint of a team thread names.
fn agent_of(id: &str, checkpoint: &Checkpoint) -> Result<String, ThreadError> {
    checkpoint.state["agent"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| invalid(id, "its state names no agent".to_owned()))
}
