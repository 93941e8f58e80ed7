//! Handoffs: agents of a [`Team`] pass the conversation to each other.
//!
//! Each handoff `from → to` offers `from`'s model a `transfer_to_<to>` tool (the OpenAI
//! Agents SDK's `handoff`). When the model calls it, `from`'s run stops before any tool runs,
//! the conversation — filtered by the handoff's [`HandoffInput`] — goes to `to`, and `to`
//! answers from there (or hands on). The run's result names the agent that answered.
//!
//! Every member answers with the team's output type `O`, checked at compile time: a member
//! whose output is another type is added with a function into `O` (e.g. a variant of an enum
//! over the members' outputs), see [`TeamBuilder::agent_with`].
//!
//! ```
//! use agentry::agent::{AgentBuilder, NoTools};
//! use agentry::multi::Team;
//! use agentry::testing::{ScriptedModel, Turn};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let triage = ScriptedModel::new([Turn::tool_call("transfer_to_billing", serde_json::json!({}))]);
//! let billing = ScriptedModel::new([Turn::text("Your invoice is fixed.")]);
//! let team = Team::<String, ()>::builder()
//!     .agent("triage", "Routes requests.", AgentBuilder::<_, _, (), ()>::new(triage, NoTools))
//!     .agent("billing", "Answers billing questions.", AgentBuilder::<_, _, (), ()>::new(billing, NoTools))
//!     .handoff("triage", "billing")
//!     .build()
//!     .unwrap();
//! let run = team.run("My invoice is wrong.", ()).await.unwrap();
//! assert_eq!(run.agent, "billing");
//! assert_eq!(run.output, "Your invoice is fixed.");
//! assert_eq!(run.handoffs, [("triage".to_string(), "billing".to_string())]);
//! # });
//! ```

use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use super::handoff_input::HandoffInput;
use super::member::{Leg, Runner};
pub use super::team_builder::{AnswersWith, DEFAULT_MAX_HANDOFFS, TeamBuilder, TeamOutput};
pub use super::team_error::{TeamBuildError, TeamError};
pub use super::team_result::{TeamEvent, TeamResult};
pub use super::team_stream::TeamStream;
use crate::agent::{AgentEvent, RequestUsage, ThreadError};
use crate::agent::{IntoContext, IntoInput};
use crate::message::Message;
use crate::middleware::Decision;
use crate::persist::Checkpointer;
use crate::usage::Usage;

/// Agents answering with output `O` under context `C`, passing the conversation to each
/// other. Built by [`Team::builder`].
pub struct Team<O, C = ()> {
    pub(super) members: Vec<Built<O, C>>,
    pub(super) max_handoffs: u32,
    pub(super) checkpointer: Option<Arc<dyn Checkpointer>>,
}

/// A member of a built team.
pub(super) struct Built<O, C> {
    pub(super) name: String,
    pub(super) runner: Box<dyn Runner<O, C>>,
    /// Input filter per target member index.
    pub(super) inputs: Vec<(usize, HandoffInput)>,
}

/// What runs next in a team run: a member on a conversation, or a member's pause resumed.
enum Next {
    Run(Vec<Message>),
    Resume {
        pause: Value,
        sent: usize,
        decisions: Vec<(String, Decision)>,
    },
}

/// What a team run gathered so far.
#[derive(Default)]
struct Progress {
    added: Vec<Message>,
    handoffs: Vec<(String, String)>,
    usage: Usage,
    request_usage: Vec<RequestUsage>,
}

/// A team run that paused at a member, as a team thread saves it (its `pending`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct SavedPause {
    /// The member that paused.
    pub(super) agent: String,
    /// The tools it stopped at.
    pub(super) tools: Vec<String>,
    /// Its [`Pause`](crate::agent::Pause), as JSON.
    pub(super) pause: Value,
    /// How many messages of the conversation it was given (without instructions).
    pub(super) sent: usize,
    /// The handoffs taken before it paused.
    pub(super) handoffs: Vec<(String, String)>,
    /// The usage of the agents before it.
    pub(super) usage: Usage,
    /// Their requests.
    pub(super) request_usage: Vec<RequestUsage>,
}

/// How a team run ended: an answer, or a member's pause.
pub(super) enum Driven<O> {
    Finished(TeamResult<O>),
    Paused {
        /// What the run added before the pause (its input, then the agents' turns).
        added: Vec<Message>,
        saved: SavedPause,
    },
}

impl<O> Driven<O> {
    /// The result; a pause is [`TeamError::Paused`].
    pub(super) fn finished(self) -> Result<TeamResult<O>, TeamError> {
        match self {
            Driven::Finished(result) => Ok(result),
            Driven::Paused { saved, .. } => Err(TeamError::Paused {
                agent: saved.agent,
                tools: saved.tools,
            }),
        }
    }
}

/// The conversation in `messages`: without the agents' instructions (a member's run returns
/// its own in front).
fn conversation(messages: &[Message]) -> impl Iterator<Item = &Message> {
    messages
        .iter()
        .filter(|m| !matches!(m, Message::System { .. }))
}

/// What a member's run added to the `sent` messages of conversation it was given: the rest
/// of the conversation it returned.
fn turn(sent: usize, returned: &[Message]) -> impl Iterator<Item = Message> + '_ {
    conversation(returned).skip(sent).cloned()
}

impl<O: Send + 'static, C: Send + Sync + 'static> Team<O, C> {
    /// Runs the conversation from the first agent until an agent answers.
    pub fn run(
        &self,
        input: impl IntoInput,
        context: impl IntoContext<C>,
    ) -> BoxFuture<'_, Result<TeamResult<O>, TeamError>> {
        // Not an `async fn`: the returned future's type does not name the arguments, so a
        // wrong one is one error at the call, not one more at each `.await`.
        let input = input.into().messages().to_vec();
        let context = context.into_context();
        async move {
            self.drive(Vec::new(), input, 0, context, None)
                .await?
                .finished()
        }
        .boxed()
    }

    /// Runs like [`Team::run`], streaming each agent's events, the handoffs, and finally
    /// [`TeamEvent::Done`].
    pub fn stream(&self, input: impl IntoInput, context: impl IntoContext<C>) -> TeamStream<'_, O> {
        let input = input.into().messages().to_vec();
        let context = context.into_context();
        TeamStream::new(move |sender| {
            async move {
                self.drive(Vec::new(), input, 0, context, Some(sender))
                    .await?
                    .finished()
            }
            .boxed()
        })
    }

    /// Runs the conversation `history` + `input` from member `start` until an agent answers;
    /// without a thread, a member's pause ends the run with [`TeamError::Paused`].
    pub(super) async fn drive(
        &self,
        history: Vec<Message>,
        input: Vec<Message>,
        start: usize,
        context: Arc<C>,
        events: Option<UnboundedSender<TeamEvent<O>>>,
    ) -> Result<Driven<O>, TeamError> {
        let progress = Progress {
            added: input.clone(),
            ..Progress::default()
        };
        let mut messages = history;
        messages.extend(input);
        let current = start.min(self.members.len() - 1);
        self.go(progress, current, Next::Run(messages), context, events)
            .await
    }

    /// Goes on with a run that paused at member `current`: resumes its pause with
    /// `decisions`, then goes on as the run would have.
    pub(super) async fn drive_resumed(
        &self,
        saved: SavedPause,
        decisions: Vec<(String, Decision)>,
        context: Arc<C>,
        events: Option<UnboundedSender<TeamEvent<O>>>,
    ) -> Result<Driven<O>, TeamError> {
        let current = self.member_index(&saved.agent).ok_or_else(|| {
            ThreadError::from(crate::persist::PersistError::Invalid {
                what: "team thread",
                reason: format!("its paused agent `{}` is not in the team", saved.agent),
            })
        })?;
        let progress = Progress {
            added: Vec::new(),
            handoffs: saved.handoffs,
            usage: saved.usage,
            request_usage: saved.request_usage,
        };
        let next = Next::Resume {
            pause: saved.pause,
            sent: saved.sent,
            decisions,
        };
        self.go(progress, current, next, context, events).await
    }

    async fn go(
        &self,
        mut progress: Progress,
        mut current: usize,
        mut next: Next,
        context: Arc<C>,
        events: Option<UnboundedSender<TeamEvent<O>>>,
    ) -> Result<Driven<O>, TeamError> {
        loop {
            let member = &self.members[current];
            let sink = events.as_ref().map(|sender| {
                let sender = sender.clone();
                let agent = member.name.clone();
                move |event: AgentEvent<Value, ()>| {
                    let _ = sender.send(TeamEvent::Agent {
                        agent: agent.clone(),
                        event,
                    });
                }
            });
            let sink_ref = sink
                .as_ref()
                .map(|s| s as &(dyn Fn(AgentEvent<Value, ()>) + Send + Sync));
            let context = Arc::clone(&context);
            let (sent, leg) = match next {
                Next::Run(messages) => {
                    let sent = conversation(&messages).count();
                    (sent, member.runner.run(messages, context, sink_ref).await)
                }
                Next::Resume {
                    pause,
                    sent,
                    decisions,
                } => {
                    let leg = member.runner.resume(pause, decisions, context, sink_ref);
                    (sent, leg.await)
                }
            };
            let leg = leg.map_err(|error| TeamError::Agent {
                agent: member.name.clone(),
                error: Box::new(error),
            })?;
            let tag = |requests: Vec<RequestUsage>| {
                requests.into_iter().map(|mut r| {
                    r.agent = Some(match r.agent.take() {
                        None => member.name.clone(),
                        Some(inner) => format!("{}/{inner}", member.name),
                    });
                    r
                })
            };
            match leg {
                Leg::Paused { pause, tools } => {
                    let Progress {
                        added,
                        handoffs,
                        usage,
                        request_usage,
                    } = progress;
                    return Ok(Driven::Paused {
                        added,
                        saved: SavedPause {
                            agent: member.name.clone(),
                            tools,
                            pause,
                            sent,
                            handoffs,
                            usage,
                            request_usage,
                        },
                    });
                }
                Leg::Answer {
                    output,
                    messages,
                    usage: spent,
                    request_usage: requests,
                    stop_reason,
                } => {
                    let Progress {
                        mut added,
                        handoffs,
                        mut usage,
                        mut request_usage,
                    } = progress;
                    usage += spent;
                    request_usage.extend(tag(requests));
                    added.extend(turn(sent, &messages));
                    return Ok(Driven::Finished(TeamResult {
                        output,
                        agent: member.name.clone(),
                        handoffs,
                        messages,
                        usage,
                        request_usage,
                        stop_reason,
                        added,
                    }));
                }
                Leg::Handoff {
                    to,
                    messages: handed,
                    usage: spent,
                    request_usage: requests,
                } => {
                    progress.usage += spent;
                    progress.request_usage.extend(tag(requests));
                    progress.added.extend(turn(sent, &handed));
                    let handoffs = &mut progress.handoffs;
                    let target = &self.members[to];
                    handoffs.push((member.name.clone(), target.name.clone()));
                    if handoffs.len() > self.max_handoffs as usize {
                        let mut path: Vec<&str> = vec![handoffs[0].0.as_str()];
                        path.extend(handoffs.iter().map(|(_, to)| to.as_str()));
                        return Err(TeamError::TooManyHandoffs {
                            max: self.max_handoffs,
                            path: path.join(" → "),
                        });
                    }
                    if let Some(sender) = &events {
                        let _ = sender.send(TeamEvent::Handoff {
                            from: member.name.clone(),
                            to: target.name.clone(),
                        });
                    }
                    let filter = member
                        .inputs
                        .iter()
                        .find(|(t, _)| *t == to)
                        .map(|(_, input)| input.clone())
                        .unwrap_or_default();
                    next = Next::Run(filter.apply(handed));
                    current = to;
                }
            }
        }
    }

    /// The index of the member named `name`.
    pub(super) fn member_index(&self, name: &str) -> Option<usize> {
        self.members.iter().position(|m| m.name == name)
    }

    /// The agents' names, the starting agent first.
    pub fn agents(&self) -> impl Iterator<Item = &str> {
        self.members.iter().map(|m| m.name.as_str())
    }
}
