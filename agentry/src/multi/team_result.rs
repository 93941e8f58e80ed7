//! What a team run returns, and the events of a streamed one.

use serde_json::Value;

use crate::agent::{AgentEvent, RequestUsage, StopReason};
use crate::message::Message;
use crate::usage::Usage;

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
    /// filters. A [team thread](super::Team::thread) appends it to its history.
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
    /// [`TeamStream::result`](super::TeamStream::result) after this event (the output need
    /// not be `Clone`).
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
