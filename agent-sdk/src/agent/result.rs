//! What a finished run returns.

use serde::{Deserialize, Serialize};

use super::limits::Limit;
use crate::message::{Message, ToolCall};
use crate::tool::{ToolCallError, ToolOutput};
use crate::usage::Usage;

/// A finished run.
#[derive(Clone, Debug)]
pub struct RunResult<T, S = ()> {
    /// The typed final answer.
    pub output: T,
    /// The state after the last tool batch.
    pub state: S,
    /// The whole conversation, system message first. Serialize it and pass it back as the
    /// history of the next run to continue the conversation.
    pub messages: Vec<Message>,
    /// Tokens and requests spent in total.
    pub usage: Usage,
    /// Usage of each request, in order.
    pub request_usage: Vec<RequestUsage>,
    /// Each tool call with its result, in order.
    pub steps: Vec<Step>,
    /// Why the run ended.
    pub stop_reason: StopReason,
}

/// Usage of one model request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestUsage {
    /// The model that answered, as the provider reported it.
    pub model: String,
    /// The request's usage.
    pub usage: Usage,
    /// The sub-agent that made the request (`researcher`, or `researcher/fact_checker` for a
    /// sub-agent's own sub-agent); `None` for the run's own agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// One tool call and its result.
#[derive(Clone, Debug)]
pub struct Step {
    /// The model request (1-based) whose answer made the call.
    pub turn: u32,
    /// The call as the model wrote it.
    pub call: ToolCall,
    /// What the tool returned, or why it could not.
    pub result: Result<ToolOutput, ToolCallError>,
}

/// Why a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum StopReason {
    /// The model gave its final answer.
    FinalAnswer,
    /// A `return_direct` tool ended the run with its output.
    ReturnDirect {
        /// The tool.
        tool: String,
    },
    /// A limit was reached and the model gave a final answer without tools
    /// ([`LimitPolicy::FinalAnswer`](super::LimitPolicy::FinalAnswer)).
    LimitReached {
        /// The limit.
        limit: Limit,
    },
    /// A middleware ended the run with its own answer.
    Ended {
        /// The middleware's name.
        by: String,
    },
}
