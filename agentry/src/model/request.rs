//! What is sent to a model.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{PromptCache, ProviderTool};
use crate::messages::Messages;
use crate::shared_list::SharedList;
use crate::tool::DefinitionRef;

/// The tools of a request: shared with the agent that offers them, so a request costs a
/// reference count, not a copy of the list. It reads and changes like a `Vec<DefinitionRef>`
/// (see [`SharedList`]).
pub type Tools = SharedList<DefinitionRef>;

/// One request to a chat model.
#[derive(Clone, Debug, Default)]
pub struct ChatRequest {
    /// The conversation so far, system messages included. Shared, not copied: a run hands
    /// each request a clone of its transcript (see [`Messages`]).
    pub messages: Messages,
    /// The tools the model may call.
    pub tools: Tools,
    /// Whether and which tool the model must call.
    pub tool_choice: Option<ToolChoice>,
    /// Whether the model may call several tools in one turn (`None`: provider default).
    pub parallel_tool_calls: Option<bool>,
    /// Sampling temperature, sent exactly as written (`0.1` goes out as `0.1`).
    pub temperature: Option<f64>,
    /// Nucleus sampling: the probability mass to sample from, sent exactly as written.
    pub top_p: Option<f64>,
    /// Maximum tokens to generate.
    pub max_tokens: Option<u32>,
    /// Sequences that stop generation.
    pub stop: Vec<String>,
    /// Seed for reproducible sampling, where supported.
    pub seed: Option<u64>,
    /// The shape of the answer.
    pub response_format: Option<ResponseFormat>,
    /// Tools the provider runs itself (web search, code execution), beside [`tools`](Self::tools).
    pub provider_tools: Vec<ProviderTool>,
    /// Prompt-cache breakpoints (Anthropic's `cache_control`).
    pub cache: PromptCache,
    /// OpenAI's `prompt_cache_key`: requests with the same key are routed to the same cache.
    pub prompt_cache_key: Option<String>,
}

impl ChatRequest {
    /// A request with these messages and default settings.
    pub fn new(messages: impl Into<Messages>) -> Self {
        ChatRequest {
            messages: messages.into(),
            ..ChatRequest::default()
        }
    }
}

/// Whether and which tool the model must call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// The model must not call tools.
    None,
    /// The model must call at least one tool.
    Required,
    /// The model must call this tool.
    Tool(String),
}

/// The shape of the model's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseFormat {
    /// Free text.
    Text,
    /// Any JSON object.
    JsonObject,
    /// JSON matching a schema (the canonical schema; providers lower it).
    JsonSchema {
        /// A name for the schema, e.g. the output type's name.
        name: String,
        /// A description of the expected output.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// The canonical JSON schema.
        schema: Value,
        /// Whether the provider must enforce the schema exactly.
        strict: bool,
    },
}
