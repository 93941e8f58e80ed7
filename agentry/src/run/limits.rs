//! How long a run may go on, and what happens when it cannot go on.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::cost::Cost;

/// The default [`Limits::max_turns`].
pub const DEFAULT_MAX_TURNS: u32 = 10;

/// Bounds on one run. A run is never unbounded by default: `max_turns` is 10.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Model requests per run (every request counts: tool turns and answer corrections).
    pub max_turns: u32,
    /// Wall-clock time for the whole run, checked before each request and enforced on each
    /// model call and tool batch.
    pub max_execution_time: Option<Duration>,
    /// Input plus output tokens over all the run's requests.
    pub max_total_tokens: Option<u64>,
    /// What the run's requests may cost, at the agent's price table
    /// ([`AgentBuilder::max_cost`](crate::agent::AgentBuilder::max_cost)); checked before each
    /// request.
    pub max_cost: Option<Cost>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_turns: DEFAULT_MAX_TURNS,
            max_execution_time: None,
            max_total_tokens: None,
            max_cost: None,
        }
    }
}

/// A limit that was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "limit", rename_all = "snake_case")]
pub enum Limit {
    /// `max_turns` requests were made.
    Turns {
        /// The limit.
        max: u32,
    },
    /// `max_execution_time` has passed.
    Time {
        /// The limit.
        max: Duration,
    },
    /// The token budget is spent.
    Tokens {
        /// The limit.
        max: u64,
        /// Tokens used when the limit was noticed.
        used: u64,
    },
    /// The cost budget is spent.
    Cost {
        /// The limit.
        max: Cost,
        /// What the run had cost when the limit was noticed.
        used: Cost,
    },
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Turns { max } => write!(f, "turn limit ({max} model requests)"),
            Limit::Time { max } => write!(f, "time limit ({max:?})"),
            Limit::Tokens { max, used } => write!(f, "token budget ({used} of {max} tokens used)"),
            Limit::Cost { max, used } => write!(f, "cost budget ({used} of {max} spent)"),
        }
    }
}

/// What a run does when it reaches a limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LimitPolicy {
    /// Stop with [`RunErrorKind::LimitExceeded`](super::RunErrorKind::LimitExceeded), carrying
    /// the transcript so far.
    #[default]
    Error,
    /// Make one last request without tools, asking the model for its final answer with what
    /// it has (LangChain's `early_stopping_method = "generate"`). That request is not bounded
    /// by the limit that triggered it.
    FinalAnswer,
}

/// What a run does when a tool returns an error, panics or times out.
///
/// Unknown tools and invalid arguments always go back to the model, which can correct them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ToolErrorPolicy {
    /// Send the error to the model as the tool's result and go on (within the tool's retry
    /// budget).
    #[default]
    ReportToModel,
    /// Stop the run with [`RunErrorKind::Tool`](super::RunErrorKind::Tool).
    Propagate,
}

/// Everything that shapes a run's decisions, in one value (what the state machine reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunPolicy {
    /// The limits.
    pub limits: Limits,
    /// What to do at a limit.
    pub on_limit: LimitPolicy,
    /// What to do with a tool's own error.
    pub tool_errors: ToolErrorPolicy,
    /// Consecutive failed calls of one tool (unknown name, invalid arguments, error, panic)
    /// sent back to the model before the run stops.
    pub max_tool_retries: u32,
    /// Invalid final answers sent back for correction before the run stops.
    pub max_output_retries: u32,
}

impl Default for RunPolicy {
    fn default() -> Self {
        RunPolicy {
            limits: Limits::default(),
            on_limit: LimitPolicy::default(),
            tool_errors: ToolErrorPolicy::default(),
            max_tool_retries: 3,
            max_output_retries: 3,
        }
    }
}
