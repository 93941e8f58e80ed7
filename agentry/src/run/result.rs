//! What a finished run returns.

use serde::{Deserialize, Serialize};

use super::limits::Limit;
use crate::cost::{Cost, CostError, PriceTable};
use crate::message::{ContentBlock, Message, ToolCall};
use crate::messages::Messages;
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
    ///
    /// A [`Messages`]: it reads like a `Vec<Message>` (it derefs to one) and is shared, not
    /// copied, with the run's thread cache, so returning a long thread's transcript costs a
    /// reference count. [`Messages::into_vec`] gives a plain vector (copying only while the
    /// buffer is shared); a change through it copies the buffer once while shared.
    pub messages: Messages,
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
    /// Each tool call as an action with its observation, in order: what LangChain's
    /// `return_intermediate_steps` gives. The same for both tool protocols.
    pub fn intermediate_steps(&self) -> Vec<IntermediateStep> {
        intermediate_steps(&self.messages, &self.steps)
    }

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

/// One tool call as an (action, observation) pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntermediateStep {
    /// The tool called.
    pub tool: String,
    /// Its arguments, as JSON text.
    pub tool_input: String,
    /// The model's reasoning before the call (a ReAct `Thought:`, or the text or reasoning
    /// of a native answer); may be empty.
    pub log: String,
    /// What was sent back to the model: the tool's text, or the error message it got.
    pub observation: String,
}

/// The steps of `steps` as actions and observations, their thoughts found in `messages`.
pub fn intermediate_steps(messages: &[Message], steps: &[Step]) -> Vec<IntermediateStep> {
    steps
        .iter()
        .map(|step| IntermediateStep {
            tool: step.call.name.clone(),
            tool_input: step.call.arguments.clone(),
            log: thought_of(messages, &step.call.id),
            observation: match &step.result {
                Ok(output) => output.text_content(),
                Err(error) => error.model_message(),
            },
        })
        .collect()
}

fn thought_of(messages: &[Message], call_id: &str) -> String {
    let Some(answer) = messages.iter().rev().find_map(|m| match m {
        Message::Assistant(a) if a.tool_calls.iter().any(|c| c.id == call_id) => Some(a),
        _ => None,
    }) else {
        return String::new();
    };
    let reasoning: String = answer
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Reasoning { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    if reasoning.trim().is_empty() {
        answer.text()
    } else {
        reasoning
    }
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
