//! A team's conversation kept in a checkpointer: [`TeamThread`].
//!
//! A thread's checkpoints hold its messages (what each run [added](super::TeamResult::added))
//! and, as the state, `{"agent": name}`: the agent that answered last, which answers the
//! thread's next message. A run is saved when it ends: a run that fails or is dropped
//! leaves the thread as it was (a dropped run can be recorded with [`TeamThread::cancel`]).

use std::sync::Arc;

use futures::FutureExt;
use serde_json::{Value, json};

use super::handoff::{Team, TeamError, TeamResult};
use super::team_stream::TeamStream;
use crate::agent::{Input, ThreadError};
use crate::message::Message;
use crate::persist::{Checkpoint, CheckpointWrite, Checkpointer, PersistError};

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
    /// When it was saved.
    pub updated_at: std::time::SystemTime,
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
    pub async fn run(
        &self,
        input: impl Into<Input>,
        context: impl Into<Arc<C>>,
    ) -> Result<TeamResult<O>, TeamError> {
        self.stream(input, context).result().await
    }

    /// Runs like [`TeamThread::run`], streaming the events (see [`Team::stream`]).
    pub fn stream(&self, input: impl Into<Input>, context: impl Into<Arc<C>>) -> TeamStream<'a, O> {
        let input = input.into().messages().to_vec();
        let context = context.into();
        let (team, id) = (self.team, self.id.clone());
        let checkpointer = self.checkpointer();
        TeamStream::new(move |sender| {
            async move {
                let checkpointer = checkpointer?;
                let latest = checkpointer.latest(&id).await.map_err(ThreadError::from)?;
                let (history, start) = match &latest {
                    None => (Vec::new(), 0),
                    Some(c) => {
                        let agent = agent_of(&id, c)?;
                        let start = team.member_index(&agent).ok_or_else(|| {
                            invalid(&id, format!("its agent `{agent}` is not in the team"))
                        })?;
                        (c.messages.clone(), start)
                    }
                };
                let result = team
                    .drive(history, input, start, context, Some(sender))
                    .await?;
                let state = json!({ "agent": result.agent });
                let write = match &latest {
                    None => CheckpointWrite::first(&id, &result.added, &state).usage(result.usage),
                    Some(c) => CheckpointWrite::next(&id, c.step, &result.added, &state)
                        .usage(c.usage + result.usage),
                };
                checkpointer.put(write).await.map_err(ThreadError::from)?;
                Ok(result)
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
            match checkpointer.put(write.counters(&counters)).await {
                Err(PersistError::Conflict { .. }) => continue,
                other => return other.map(|_| ()).map_err(Into::into),
            }
        }
        Err(invalid(&self.id, "it kept changing".to_owned()))
    }
}

/// The agent a checkpoint of a team thread names.
fn agent_of(id: &str, checkpoint: &Checkpoint) -> Result<String, ThreadError> {
    checkpoint.state["agent"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| invalid(id, "its state names no agent".to_owned()))
}
