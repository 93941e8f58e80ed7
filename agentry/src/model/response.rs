//! What a model answers.

use serde::{Deserialize, Serialize};

use crate::message::AssistantMessage;
use crate::usage::Usage;

/// A model's whole answer to one request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The answer: text, reasoning, tool calls, refusal.
    pub message: AssistantMessage,
    /// Tokens spent on this request (`requests` is 1).
    pub usage: Usage,
    /// Why generation stopped.
    pub finish_reason: FinishReason,
    /// The model that answered, as the provider reports it.
    pub model: String,
    /// The provider's id for the response, when it sends one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// Why the model stopped generating.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A natural end, or a stop sequence.
    Stop,
    /// The token limit was reached; the answer is truncated.
    Length,
    /// The model called tools and waits for their results.
    ToolCalls,
    /// The provider filtered the content (safety).
    ContentFilter,
    /// The model refused.
    Refusal,
    /// A reason this SDK does not know, as the provider named it.
    Other(String),
}
