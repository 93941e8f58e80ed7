//! OpenAI Chat Completions, and every server that speaks it (Ollama, vLLM, Groq, OpenRouter,
//! Together, LM Studio...).
//!
//! ```no_run
//! use std::time::Duration;
//! use agent_sdk::model::{ChatModel, ChatRequest};
//! use agent_sdk::providers::openai::OpenAiModel;
//! use agent_sdk::http::RateLimit;
//! use agent_sdk::Message;
//!
//! # async fn run() -> Result<(), agent_sdk::model::ModelError> {
//! let model = OpenAiModel::builder("gpt-4o-mini")      // key from OPENAI_API_KEY
//!     .timeout(Duration::from_secs(60))
//!     .max_retries(3)
//!     .rate_limit(RateLimit::per_second(5.0).max_concurrent(4))
//!     .build()?;
//! let answer = model.invoke(ChatRequest::new(vec![Message::user("Hi!")])).await?;
//! println!("{}", answer.message.text());
//! # Ok(()) }
//! ```
//!
//! How unsupported settings are handled is described in the `request` lowering table of
//! [`OpenAiModel`]'s documentation.

mod builder;
mod client;
mod errors;
mod request;
mod response;
mod stream;
mod wire;

pub use builder::OpenAiModelBuilder;
pub use stream::decode_chat_stream;

use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use futures::{StreamExt, TryFutureExt};

use crate::http::{ApiKey, RateLimiter, RetryPolicy, Timeouts};
use crate::model::{
    ChatModel, ChatRequest, ChatResponse, EventStream, ModelError, ModelProfile, UsageTracker,
};

/// Which request field carries [`ChatRequest::max_tokens`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MaxTokensField {
    /// `max_completion_tokens`: OpenAI's current field (required by reasoning models).
    #[default]
    MaxCompletionTokens,
    /// `max_tokens`: the older field most compatible servers read.
    MaxTokens,
}

/// A model served through the Chat Completions API.
///
/// Cloning is cheap and shares the HTTP connection pool, the rate limiter and the usage
/// tracker. `Debug` never shows the API key.
///
/// Settings the model's [`ModelProfile`] rules out are handled before a request is sent:
///
/// | setting | when unsupported |
/// |---|---|
/// | `response_format: json_schema` | refused with [`ModelError::Unsupported`] |
/// | `tool_choice: required` / a named tool / `none` | refused with [`ModelError::Unsupported`] |
/// | strict tools | dropped with a `tracing` warning: sent in the plain `openai` dialect |
/// | `parallel_tool_calls` | dropped with a warning |
/// | `seed` | dropped with a warning |
/// | `temperature` on a reasoning model | dropped with a warning |
/// | usage in streams | `stream_options` not sent |
#[derive(Clone)]
pub struct OpenAiModel {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub model: String,
    pub provider: String,
    pub endpoint: reqwest::Url,
    pub api_key: Option<ApiKey>,
    pub header_names: Vec<String>,
    pub client: reqwest::Client,
    /// Headers to send per request (only with a user-supplied client).
    pub request_headers: Option<reqwest::header::HeaderMap>,
    pub timeouts: Timeouts,
    pub retry: RetryPolicy,
    pub limiter: Option<RateLimiter>,
    pub profile: ModelProfile,
    pub max_tokens_field: MaxTokensField,
    pub tracker: Option<UsageTracker>,
}

impl OpenAiModel {
    /// A builder for an OpenAI model. The key defaults to `OPENAI_API_KEY` and the base URL
    /// to `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. A key is required only for
    /// `api.openai.com`, so pointing `OPENAI_BASE_URL` at a local server is enough to use it.
    pub fn builder(model: impl Into<String>) -> OpenAiModelBuilder {
        OpenAiModelBuilder::openai(model.into())
    }

    /// A builder for any OpenAI-compatible server at `base_url` (e.g.
    /// `http://localhost:8000/v1`): no key required, the [conservative](ModelProfile::conservative)
    /// profile, and `max_tokens` for the token limit.
    pub fn compatible(model: impl Into<String>, base_url: impl Into<String>) -> OpenAiModelBuilder {
        OpenAiModelBuilder::compatible(model.into()).base_url(base_url)
    }

    /// The URL requests are sent to (`.../chat/completions`).
    pub fn endpoint(&self) -> &str {
        self.inner.endpoint.as_str()
    }

    /// The usage tracker attached when the model was built, if any.
    pub fn usage_tracker(&self) -> Option<&UsageTracker> {
        self.inner.tracker.as_ref()
    }
}

impl fmt::Debug for OpenAiModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        f.debug_struct("OpenAiModel")
            .field("provider", &i.provider)
            .field("model", &i.model)
            .field("endpoint", &i.endpoint.as_str())
            .field("api_key", &i.api_key)
            .field("extra_headers", &i.header_names)
            .field("timeouts", &i.timeouts)
            .field("retry", &i.retry)
            .field("rate_limit", &i.limiter.as_ref().map(RateLimiter::limit))
            .field("profile", &i.profile)
            .field("max_tokens_field", &i.max_tokens_field)
            .finish_non_exhaustive()
    }
}

impl ChatModel for OpenAiModel {
    fn model_name(&self) -> &str {
        &self.inner.model
    }

    fn provider(&self) -> &str {
        &self.inner.provider
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
