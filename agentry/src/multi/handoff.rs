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
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use super::handoff_input::HandoffInput;
use super::member::{Leg, MakeRunner, Runner, Transfer, make_runner, transfer_definition};
pub use super::team_stream::TeamStream;
use crate::agent::IntoContext;
use crate::agent::{
    AgentBuilder, AgentEvent, Input, RequestUsage, RunError, StopReason, ThreadError, ThreadState,
    Toolset,
};
use crate::message::Message;
use crate::middleware::Decision;
use crate::output::OutputSpec;
use crate::persist::Checkpointer;
use crate::usage::Usage;

/// An output spec whose output is the team's output `O`: what [`TeamBuilder::agent`] asks of
/// an agent (another output type is a type mismatch naming both types; add such an agent with
/// [`TeamBuilder::agent_with`]).
pub trait AnswersWith<O>: OutputSpec {
    /// The output, as the team's.
    fn into_team_output(output: Self::Output) -> O;
}

impl<Sp: OutputSpec> AnswersWith<Sp::Output> for Sp {
    fn into_team_output(output: Sp::Output) -> Sp::Output {
        output
    }
}

/// The default cap on handoffs in one team run.
pub const DEFAULT_MAX_HANDOFFS: u32 = 10;

struct MemberSpec<O, C> {
    name: String,
    description: String,
    make: MakeRunner<O, C>,
}

/// Configures a [`Team`]: its agents (the first one added starts every run) and who may
/// hand off to whom.
pub struct TeamBuilder<O, C = ()> {
    members: Vec<MemberSpec<O, C>>,
    handoffs: Vec<(String, String, HandoffInput)>,
    max_handoffs: u32,
    checkpointer: Option<Arc<dyn Checkpointer>>,
}

/// Agents answering with output `O` under context `C`, passing the conversation to each
/// other. Built by [`Team::builder`].
pub struct Team<O, C = ()> {
    members: Vec<Built<O, C>>,
    max_handoffs: u32,
    pub(super) checkpointer: Option<Arc<dyn Checkpointer>>,
}

struct Built<O, C> {
    name: String,
    runner: Box<dyn Runner<O, C>>,
    /// Input filter per target member index.
    inputs: Vec<(usize, HandoffInput)>,
}

/// Why a team could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TeamBuildError {
    /// No agent was added.
    #[error("a team needs at least one agent: add one with `.agent(name, description, builder)`")]
    Empty,
    /// Two agents share a name.
    #[error("two agents of the team are named `{0}`; give each its own name")]
    Duplicate(String),
    /// A handoff names an agent that is not in the team.
    #[error(
        "handoff `{from}` → `{to}` names `{unknown}`, which is not an agent of this team (agents: {known})"
    )]
    UnknownAgent {
        /// The handoff's source.
        from: String,
        /// The handoff's target.
        to: String,
        /// The name not found.
        unknown: String,
        /// The team's agents.
        known: String,
    },
    /// A name that cannot be part of a tool name.
    #[error(
        "agent name {0:?} cannot be part of a tool name: use letters, digits and `_` (at most 50 characters)"
    )]
    BadName(String),
}

/// Why a team run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TeamError {
    /// An agent's run failed.
    #[error("agent `{agent}` failed: {error}")]
    Agent {
        /// The agent.
        agent: String,
        /// Its error, with its partial run.
        error: Box<RunError>,
    },
    /// An agent stopped for review of a tool call (or at a tool's question, or at an
    /// external tool). On a team thread ([`Team::thread`]) the run is saved paused and
    /// [`TeamThread::resume`](super::TeamThread::resume) goes on with it; a run without a
    /// thread ([`Team::run`]) ends here.
    #[error(
        "agent `{agent}` stopped for review of, or a question from, {}: the run pauses on a team thread (resume it with `TeamThread::resume`); without a thread it ends here",
        tools.join(", ")
    )]
    Paused {
        /// The agent.
        agent: String,
        /// The reviewed tools, and the tools that asked a question (or are external).
        tools: Vec<String>,
    },
    /// The agents handed the conversation on more than `max` times.
    #[error("the agents handed the conversation on more than {max} times ({path})")]
    TooManyHandoffs {
        /// The cap.
        max: u32,
        /// The agents in order, `a → b → a → ...`.
        path: String,
    },
    /// [`TeamStream::result`] after the events were read to the end of a failed run: the
    /// error was the last event.
    #[error("the team stream's last event (an error) was already read")]
    ErrorTaken,
    /// A team thread could not be read or saved (see [`Team::thread`]).
    #[error(transparent)]
    Thread(#[from] ThreadError),
}

/// A finished team run.
#[derive(Clone, Debug)]
pub struct TeamResult<O> {
    /// The typed answer.
    pub output: O,
    /// The agent that answered.
    pub agent: String,
    /// The handoffs taken, `(from, to)`, in order.
    pub handoffs: Vec<(String, String)>,
    /// The answering agent's conversation (as its input filter left it, plus its own turn).
    pub messages: Vec<Message>,
    /// Tokens and requests of every agent, in total.
    pub usage: Usage,
    /// Each request, tagged with the agent that made it.
    pub request_usage: Vec<RequestUsage>,
    /// Why the answering agent's run ended.
    pub stop_reason: StopReason,
    /// What this run added to the conversation: the input, then each agent's turns (its
    /// answers, tool results and transfers) in order, unfiltered by the handoffs' input
    /// filters. A [team thread](Team::thread) appends it to its history.
    pub added: Vec<Message>,
}

impl<O> TeamResult<O> {
    /// The usage of each agent (see [`usage_by_agent`](super::usage_by_agent)).
    pub fn usage_by_agent(&self) -> std::collections::BTreeMap<Option<&str>, Usage> {
        super::usage_by_agent(&self.request_usage)
    }
}

/// One event of a streamed team run.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum TeamEvent<O> {
    /// An event of the agent `agent`'s run (its `Done` is reported as the team's).
    Agent {
        /// The agent.
        agent: String,
        /// Its event, with its output and state types erased.
        event: AgentEvent<Value, ()>,
    },
    /// `from` handed the conversation to `to`.
    Handoff {
        /// The agent that handed off.
        from: String,
        /// The agent that takes over.
        to: String,
    },
    /// The run finished; the last event. The result stays with the stream: take it with
    /// [`TeamStream::result`] after this event (the output need not be `Clone`).
    #[non_exhaustive]
    Done {
        /// The agent that answered.
        agent: String,
        /// Tokens and requests of every agent, in total (the result's `usage`).
        usage: Usage,
        /// The output's type (the output itself is in the stream's result).
        #[doc(hidden)]
        output: std::marker::PhantomData<fn() -> O>,
    },
}

impl<O: Send + 'static, C: Send + Sync + 'static> Team<O, C> {
    /// Starts configuring a team.
    pub fn builder() -> TeamBuilder<O, C> {
        TeamBuilder {
            members: Vec::new(),
            handoffs: Vec::new(),
            max_handoffs: DEFAULT_MAX_HANDOFFS,
            checkpointer: None,
        }
    }
}

impl<O: Send + 'static, C: Send + Sync + 'static> TeamBuilder<O, C> {
    /// Adds an agent answering with the team's output `O`; `description` tells the other
    /// agents' models when to hand off to it. The first agent added starts every run.
    pub fn agent<T, Sp, S>(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
        builder: AgentBuilder<T, Sp, C, S>,
    ) -> Self
    where
        T: Toolset<C, S>,
        T::Event: serde::Serialize,
        Sp: AnswersWith<O>,
        S: ThreadState + Default,
    {
        self.agent_with(name, description, builder, Sp::into_team_output)
    }

    /// Adds an agent with another output type, mapped into `O` by `into` (e.g. a variant of
    /// an enum over the members' outputs: `TeamAnswer::Refund`).
    pub fn agent_with<T, Sp, S>(
        mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        builder: AgentBuilder<T, Sp, C, S>,
        into: impl Fn(Sp::Output) -> O + Send + Sync + 'static,
    ) -> Self
    where
        T: Toolset<C, S>,
        T::Event: serde::Serialize,
        Sp: OutputSpec,
        S: ThreadState + Default,
    {
        self.members.push(MemberSpec {
            name: name.into(),
            description: description.into(),
            make: make_runner(builder, into),
        });
        self
    }

    /// Lets `from` hand the whole conversation to `to`.
    pub fn handoff(self, from: impl Into<String>, to: impl Into<String>) -> Self {
        self.handoff_with(from, to, HandoffInput::full())
    }

    /// Lets `from` hand the conversation to `to`, filtered by `input`.
    pub fn handoff_with(
        mut self,
        from: impl Into<String>,
        to: impl Into<String>,
        input: HandoffInput,
    ) -> Self {
        self.handoffs.push((from.into(), to.into(), input));
        self
    }

    /// Handoffs per run before it fails with [`TeamError::TooManyHandoffs`] (default 10).
    pub fn max_handoffs(mut self, max: u32) -> Self {
        self.max_handoffs = max;
        self
    }

    /// Keeps the team's threads in `checkpointer` (see [`Team::thread`]): each thread's
    /// history and the agent that answers its next message.
    pub fn checkpointer(mut self, checkpointer: impl Checkpointer) -> Self {
        self.checkpointer = Some(Arc::new(checkpointer));
        self
    }

    /// The team; fails on an unknown or repeated name.
    pub fn build(self) -> Result<Team<O, C>, TeamBuildError> {
        if self.members.is_empty() {
            return Err(TeamBuildError::Empty);
        }
        let names: Vec<String> = self.members.iter().map(|m| m.name.clone()).collect();
        for (i, name) in names.iter().enumerate() {
            let valid = !name.is_empty()
                && name.len() <= 50
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(TeamBuildError::BadName(name.clone()));
            }
            if names[..i].contains(name) {
                return Err(TeamBuildError::Duplicate(name.clone()));
            }
        }
        let index = |from: &str, to: &str, name: &str| {
            names
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| TeamBuildError::UnknownAgent {
                    from: from.to_string(),
                    to: to.to_string(),
                    unknown: name.to_string(),
                    known: names.join(", "),
                })
        };
        let mut routes: Vec<Vec<(usize, HandoffInput)>> = vec![Vec::new(); names.len()];
        for (from, to, input) in self.handoffs {
            let (f, t) = (index(&from, &to, &from)?, index(&from, &to, &to)?);
            routes[f].retain(|(target, _)| *target != t);
            routes[f].push((t, input));
        }
        let descriptions: Vec<String> =
            self.members.iter().map(|m| m.description.clone()).collect();
        let members = self
            .members
            .into_iter()
            .zip(routes)
            .map(|(spec, inputs)| {
                let transfers: Vec<Transfer> = inputs
                    .iter()
                    .map(|(target, _)| Transfer {
                        tool: format!("transfer_to_{}", names[*target]),
                        target: *target,
                        target_name: names[*target].clone(),
                    })
                    .collect();
                let definitions = inputs
                    .iter()
                    .map(|(target, _)| transfer_definition(&names[*target], &descriptions[*target]))
                    .collect();
                Built {
                    name: spec.name,
                    runner: (spec.make)(transfers, definitions),
                    inputs,
                }
            })
            .collect();
        Ok(Team {
            members,
            max_handoffs: self.max_handoffs,
            checkpointer: self.checkpointer,
        })
    }
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
    pub async fn run(
        &self,
        input: impl Into<Input>,
        context: impl IntoContext<C>,
    ) -> Result<TeamResult<O>, TeamError> {
        let input = input.into().messages().to_vec();
        self.drive(Vec::new(), input, 0, context.into_context(), None)
            .await?
            .finished()
    }

    /// Runs like [`Team::run`], streaming each agent's events, the handoffs, and finally
    /// [`TeamEvent::Done`].
    pub fn stream(
        &self,
        input: impl Into<Input>,
        context: impl IntoContext<C>,
    ) -> TeamStream<'_, O> {
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
