//! What a finished run returns.

use serde::{Deserialize, Serialize};

use super::limits::Limit;
use crate::cost::{Cost, CostError, PriceTable};
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

impl<T, S> RunResult<T, S> {
    /// What the run's requests cost at `prices`, each priced by the model that answered it;
    /// [`CostError::Unpriced`](crate::cost::CostError::Unpriced) names a model the table
    /// does not price.
    pub fn cost(&self, prices: &PriceTable) -> Result<Cost, CostError> {
        cost_of(&self.request_usage, prices)
    }
}

/// What `requests` cost at `prices`.
pub(crate) fn cost_of(requests: &[RequestUsage], prices: &PriceTable) -> Result<Cost, CostError> {
    requests
        .iter()
        .map(|r| prices.try_cost(&r.model, &r.usage))
        .sum()
}

/// Usage of one model request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestUsage {
    /// The model that answered, as the provider reported it.
    pub model: String,
    /// The request's usage.
    pub usage: Usage,
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
