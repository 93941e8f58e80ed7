//! Anthropic's Messages API (`POST /v1/messages`).
//!
//! ```no_run
//! use agentry::model::{ChatModel, ChatRequest};
//! use agentry::providers::anthropic::AnthropicModel;
//! use agentry::Message;
//!
//! # async fn run() -> Result<(), agentry::model::ModelError> {
//! let model = AnthropicModel::builder("claude-sonnet-4-5") // key from ANTHROPIC_API_KEY
//!     .thinking(2048)
//!     .build()?;
//! let answer = model.invoke(ChatRequest::new(vec![Message::user("Hi!")])).await?;
//! println!("{}", answer.message.text());
//! # Ok(()) }
//! ```
//!
//! What maps where is described in the lowering table of [`AnthropicModel`].

mod builder;
mod documents;
mod errors;
mod request;
mod response;
mod stream;

pub use builder::AnthropicModelBuilder;

use std::fmt;

use bytes::Bytes;

use super::driver::{Driver, ProviderModel, WireFormat, encode};
use super::transport::ErrorMapper;
use crate::model::{ChatRequest, ChatResponse, ModelError, ModelProfile, UsageTracker};

/// The provider name of content blocks this provider keeps as they came.
pub(crate) const PROVIDER: &str = "anthropic";

/// The `anthropic-version` header sent with every request.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// A Claude model served through the Messages API.
///
/// Cloning is cheap and shares the connection pool, the rate limiter and the usage tracker.
/// `Debug` never shows the API key.
///
/// | request | Messages API |
/// |---|---|
/// | system messages | the `system` field, joined by blank lines |
/// | tool calls / tool results | `tool_use` blocks / `tool_result` blocks, consecutive results in one user turn |
/// | `ContentBlock::Reasoning` with a signature | a `thinking` block, sent back unchanged |
/// | `ContentBlock::Other` from `anthropic` | sent back as it came (`redacted_thinking`, server tools) |
/// | tool schemas | `input_schema` in [`Dialect::Anthropic`](crate::Dialect::Anthropic) |
/// | `tool_choice` auto / required / a tool / none | `auto` / `any` / `tool` / `none` |
/// | `parallel_tool_calls: false` | `disable_parallel_tool_use: true` |
/// | `response_format: json_schema` | `output_config.format` |
/// | `response_format: json_object` | refused: [`ModelError::Unsupported`] |
/// | `response_format: json_schema` on a model without structured outputs (before Claude Sonnet 4.5 and Opus 4.1) | refused: [`ModelError::Unsupported`] |
/// | `max_tokens` (required by Anthropic) | the request's, else the builder's default (4096) |
/// | `ContentBlock::File` (PDF inline / URL / file id, plain text) | a `document` block; in tool results too |
/// | `ContentBlock::Audio`, an inline file neither PDF nor text | refused: [`ModelError::UnsupportedInput`] |
/// | `seed` | dropped with a warning |
/// | `temperature` with thinking on | dropped with a warning |
///
/// Answers: `end_turn` and `stop_sequence` are [`FinishReason::Stop`](crate::model::FinishReason::Stop),
/// `max_tokens` is `Length`, `tool_use` is `ToolCalls`; input tokens include cache reads
/// (`cached_input_tokens`) and writes (`cache_write_tokens`); an `overloaded_error` (529) is a
/// retryable [`ModelError::Server`].
///
/// It implements [`ChatModel`](crate::model::ChatModel).
#[derive(Clone)]
pub struct AnthropicModel {
    driver: Driver<Anthropic>,
}

/// The Messages API wire format and its settings.
pub(crate) struct Anthropic {
    default_max_tokens: u32,
    thinking_budget: Option<u32>,
}

impl AnthropicModel {
    /// A builder. The key defaults to `ANTHROPIC_API_KEY` and the base URL to
    /// `ANTHROPIC_BASE_URL`, else `https://api.anthropic.com`.
    pub fn builder(model: impl Into<String>) -> AnthropicModelBuilder {
        AnthropicModelBuilder::new(model.into())
    }

    /// The URL requests are sent to (`.../v1/messages`).
    pub fn endpoint(&self) -> &str {
        self.driver.endpoint()
    }

    /// The usage tracker attached when the model was built, if any.
    pub fn usage_tracker(&self) -> Option<&UsageTracker> {
        self.driver.tracker()
    }
}

impl WireFormat for Anthropic {
    type Answer = response::WireResponse;
    type Decoder = stream::Decoder;
    const MODEL_TYPE: &'static str = "AnthropicModel";
    const ERRORS: ErrorMapper = errors::error_from_response;

    fn provider(&self) -> &str {
        PROVIDER
    }

    fn body(
        &self,
        model: &str,
        profile: &ModelProfile,
        request: &ChatRequest,
        stream: bool,
        buffer: Vec<u8>,
    ) -> Result<Bytes, ModelError> {
        super::inputs::check(
            &request.messages,
            PROVIDER,
            model,
            profile,
            documents::accepts,
        )?;
        let opts = request::LowerOptions {
            model,
            default_max_tokens: self.default_max_tokens,
            thinking_budget: self.thinking_budget,
            structured_output: profile.native_structured_output,
        };
        encode(&request::lower(request, &opts, stream)?, buffer)
    }

    fn convert(&self, answer: Self::Answer, model: &str) -> Result<ChatResponse, ModelError> {
        Ok(response::convert(answer, model))
    }

    fn decoder(&self, model: &str) -> Self::Decoder {
        stream::Decoder::new(model.to_owned())
    }

    fn error_envelope(&self, answer: &Self::Answer) -> Option<ModelError> {
        let error = answer.error.as_ref().filter(|e| !e.is_null());
        let is_error = answer.kind.as_deref() == Some("error")
            || (error.is_some() && answer.content.is_empty());
        is_error.then(|| errors::envelope_error(error.unwrap_or(&serde_json::Value::Null)))
    }

    fn debug_fields(&self, debug: &mut fmt::DebugStruct<'_, '_>) {
        debug
            .field("default_max_tokens", &self.default_max_tokens)
            .field("thinking_budget", &self.thinking_budget);
    }
}

impl ProviderModel for AnthropicModel {
    type Format = Anthropic;

    fn driver(&self) -> &Driver<Anthropic> {
        &self.driver
    }
}

impl fmt::Debug for AnthropicModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.driver.fmt_debug(f)
    }
}
