//! Anthropic's Messages API (`POST /v1/messages`).
//!
//! ```no_run
//! use agent_sdk::model::{ChatModel, ChatRequest};
//! use agent_sdk::providers::anthropic::AnthropicModel;
//! use agent_sdk::Message;
//!
//! # async fn run() -> Result<(), agent_sdk::model::ModelError> {
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
mod errors;
mod request;
mod response;
mod stream;

pub use builder::AnthropicModelBuilder;

use std::fmt;
use std::sync::Arc;

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::{StreamExt, TryFutureExt};

use super::transport::{self, Call, Opened, Transport};
use crate::model::{
    ChatModel, ChatRequest, ChatResponse, EventStream, ModelError, ModelProfile, UsageTracker,
};

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
/// | `max_tokens` (required by Anthropic) | the request's, else the builder's default (4096) |
/// | `seed` | dropped with a warning |
/// | `temperature` with thinking on | dropped with a warning |
///
/// Answers: `end_turn` and `stop_sequence` are [`FinishReason::Stop`](crate::model::FinishReason::Stop),
/// `max_tokens` is `Length`, `tool_use` is `ToolCalls`; input tokens include cache reads
/// (`cached_input_tokens`) and writes (`cache_write_tokens`); an `overloaded_error` (529) is a
/// retryable [`ModelError::Server`].
#[derive(Clone)]
pub struct AnthropicModel {
    inner: Arc<Inner>,
}

struct Inner {
    model: String,
    endpoint: reqwest::Url,
    transport: Transport,
    profile: ModelProfile,
    default_max_tokens: u32,
    thinking_budget: Option<u32>,
    tracker: Option<UsageTracker>,
}

impl AnthropicModel {
    /// A builder. The key defaults to `ANTHROPIC_API_KEY` and the base URL to
    /// `ANTHROPIC_BASE_URL`, else `https://api.anthropic.com`.
    pub fn builder(model: impl Into<String>) -> AnthropicModelBuilder {
        AnthropicModelBuilder::new(model.into())
    }

    /// The URL requests are sent to (`.../v1/messages`).
    pub fn endpoint(&self) -> &str {
        self.inner.endpoint.as_str()
    }
}

impl Inner {
    fn call(&self) -> Call<'_> {
        Call {
            provider: PROVIDER,
            model: &self.model,
            url: &self.endpoint,
            errors: errors::error_from_response,
        }
    }

    fn body(&self, request: &ChatRequest, stream: bool) -> Result<Bytes, ModelError> {
        let opts = request::LowerOptions {
            model: &self.model,
            default_max_tokens: self.default_max_tokens,
            thinking_budget: self.thinking_budget,
        };
        let wire = request::lower(request, &opts, stream)?;
        serde_json::to_vec(&wire)
            .map(Bytes::from)
            .map_err(|e| ModelError::Decode(format!("could not encode the request: {e}")))
    }

    fn decode(&self, bytes: &[u8]) -> Result<ChatResponse, ModelError> {
        let wire: response::WireResponse =
            serde_json::from_slice(bytes).map_err(|e| self.transport.decode_error(e, bytes))?;
        Ok(response::convert(wire, &self.model))
    }

    async fn invoke(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let body = self.body(request, false)?;
        let bytes = self.transport.post(&self.call(), body).await?;
        self.decode(&bytes)
    }

    async fn open_stream(&self, request: &ChatRequest) -> Result<EventStream, ModelError> {
        let body = self.body(request, true)?;
        match self.transport.open(&self.call(), body).await? {
            Opened::Json(bytes) => {
                let answer = self.decode(&bytes)?;
                Ok(futures::stream::iter(transport::events_of(answer).into_iter().map(Ok)).boxed())
            }
            Opened::Sse { body, guard } => Ok(transport::drive(
                body,
                stream::Decoder::new(self.model.clone()),
                guard,
            )),
        }
    }
}

impl fmt::Debug for AnthropicModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        f.debug_struct("AnthropicModel")
            .field("model", &i.model)
            .field("endpoint", &i.endpoint.as_str())
            .field("api_key", &i.transport.api_key)
            .field("extra_headers", &i.transport.header_names)
            .field("timeouts", &i.transport.timeouts)
            .field("retry", &i.transport.retry)
            .field(
                "rate_limit",
                &i.transport
                    .limiter
                    .as_ref()
                    .map(crate::http::RateLimiter::limit),
            )
            .field("default_max_tokens", &i.default_max_tokens)
            .field("thinking_budget", &i.thinking_budget)
            .finish_non_exhaustive()
    }
}

impl ChatModel for AnthropicModel {
    fn model_name(&self) -> &str {
        &self.inner.model
    }

    fn provider(&self) -> &str {
        PROVIDER
    }

    fn profile(&self) -> &ModelProfile {
        &self.inner.profile
    }

    fn invoke(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        Box::pin(async move {
            let response = self.inner.invoke(&request).await?;
            if let Some(t) = &self.inner.tracker {
                t.record(&self.inner.model, response.usage);
            }
            Ok(response)
        })
    }

    fn stream(&self, request: ChatRequest) -> EventStream {
        let inner = self.inner.clone();
        let stream = async move { inner.open_stream(&request).await }
            .try_flatten_stream()
            .boxed();
        match &self.inner.tracker {
            Some(t) => t.track_stream(&self.inner.model, stream),
            None => stream,
        }
    }
}
