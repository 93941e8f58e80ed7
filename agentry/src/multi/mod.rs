//! Multi-agent: an agent as a typed tool of another agent, and handoffs between agents.
//!
//! **Agents as tools.** An `#[agent]` struct listed in another agent's `tools(...)` is a tool
//! of that agent (`#[agent]` implements the sub-agent traits for it). The parent model fills the sub-agent's typed input
//! ([`Prompt`] by default, or `#[agent(as_tool(input = T))]` with `T: `[`AgentInput`]) and
//! reads its typed output as JSON; the program finds the typed output as the tool result's
//! artifact. The sub-agent:
//!
//! * runs on the parent's model, unless the parent gives it another
//!   ([`AgentBuilder::sub_agent`](crate::agent::AgentBuilder::sub_agent) with
//!   [`SubAgentOptions`]);
//! * gets its context from the parent's: the same context is shared, another one is made by
//!   a function named in `as_tool(context_from(Parent = f))` or a [`FromParentContext`]
//!   impl; a sub-agent whose context cannot be made from the parent's is a compile error
//!   naming both types;
//! * keeps its own limits, capped by what is left of the parent's deadline and token budget
//!   when the call starts, and overridable per parent;
//! * adds its usage to the parent's run: in the total (which the parent's token limit
//!   counts) and in [`RunResult::request_usage`](crate::agent::RunResult::request_usage),
//!   each request tagged with the agent's name ([`usage_by_agent`]);
//! * streams its events into the parent's stream as [`AgentEvent::SubAgent`](crate::agent::AgentEvent::SubAgent);
//! * is cancelled with the parent (it is a future inside the parent's tool call), and a
//!   failed run comes back to the parent model as a tool error, within the parent's retry
//!   budget.
//!
//! **Handoffs.** A [`Team`] runs agents that pass the conversation to each other through
//! `transfer_to_<agent>` tools (the OpenAI Agents SDK's handoffs), see [`handoff`].

pub(crate) mod agent_tool;
pub mod handoff;
mod handoff_input;
mod member;
pub(crate) mod sub_agent_fields;
mod team_builder;
mod team_error;
mod team_result;
mod team_stream;
mod team_thread;
mod usage;

pub use crate::run::SubAgentEvent;
pub use crate::run::{DEFAULT_MAX_SUB_AGENT_DEPTH, SubAgentOptions};
pub use agent_tool::{AgentInput, FromParentContext, Prompt, call_agent};
// The traits `#[agent]` implements and names are public only as `__private::multi`.
pub use handoff::{
    AnswersWith, DEFAULT_MAX_HANDOFFS, Team, TeamBuildError, TeamBuilder, TeamError, TeamEvent,
    TeamOutput, TeamResult, TeamStream,
};
pub use handoff_input::HandoffInput;
pub use team_thread::{TeamPending, TeamThread, TeamThreadState};
pub use usage::usage_by_agent;
