//! Configuring a [`Team`]: its agents (the first one added starts every run), who may hand
//! off to whom, and its checkpointer; `build` checks the names and makes each member's runner.

use std::sync::Arc;

use super::handoff::{Built, Team};
use super::handoff_input::HandoffInput;
use super::member::{MakeRunner, Transfer, make_runner, transfer_definition};
use super::team_error::TeamBuildError;
use crate::agent::{AgentBuilder, ThreadState, Toolset};
use crate::output::OutputSpec;
use crate::persist::Checkpointer;

/// An output spec whose output is the team's output `O`: what [`TeamBuilder::agent`] asks of
/// an agent (another output type is one error naming both types, [`TeamOutput`]'s; add such
/// an agent with [`TeamBuilder::agent_with`]).
pub trait AnswersWith<O>: OutputSpec {
    /// The output, as the team's.
    fn into_team_output(output: Self::Output) -> O;
}

impl<Sp: OutputSpec, O> AnswersWith<O> for Sp
where
    Sp::Output: TeamOutput<O>,
{
    fn into_team_output(output: Sp::Output) -> O {
        output.into_team_output()
    }
}

/// An agent's output that is the team's output `O`: `O` itself. A trait so that an agent
/// answering another type is one error naming both types and what to write.
#[diagnostic::on_unimplemented(
    message = "this agent answers `{Self}`, not the team's output `{O}`",
    label = "every agent of a `Team<{O}>` answers with the team's output",
    note = "declare `output = {O}` on the agent's `#[agent(..)]`, or add it with `.agent_with(name, description, builder, |answer| ..)`, mapping its answer into the team's output"
)]
pub trait TeamOutput<O> {
    /// The output, as the team's.
    fn into_team_output(self) -> O;
}

impl<O> TeamOutput<O> for O {
    fn into_team_output(self) -> O {
        self
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

    /// Handoffs per run before it fails with
    /// [`TeamError::TooManyHandoffs`](super::TeamError::TooManyHandoffs) (default 10).
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
