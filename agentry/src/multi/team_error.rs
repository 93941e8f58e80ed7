//! Why a team could not be built, and why a team run failed.

use crate::agent::{RunError, ThreadError};

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
    /// external tool). On a team thread ([`Team::thread`](super::Team::thread)) the run is
    /// saved paused and [`TeamThread::resume`](super::TeamThread::resume) goes on with it; a
    /// run without a thread ([`Team::run`](super::Team::run)) ends here.
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
    /// [`TeamStream::result`](super::TeamStream::result) after the events were read to the
    /// end of a failed run: the error was the last event.
    #[error("the team stream's last event (an error) was already read")]
    ErrorTaken,
    /// A team thread could not be read or saved (see [`Team::thread`](super::Team::thread)).
    #[error(transparent)]
    Thread(#[from] ThreadError),
}
