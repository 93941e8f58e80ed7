//! Google Gemini's `generateContent` and `streamGenerateContent?alt=sse`.
//!
//! ```no_run
//! use agent_sdk::model::{ChatModel, ChatRequest};
//! use agent_sdk::providers::gemini::GeminiModel;
//! use agent_sdk::Message;
//!
//! # async fn run() -> Result<(), agent_sdk::model::ModelError> {
//! let model = GeminiModel::builder("gemini-2.5-flash").build()?; // key from GEMINI_API_KEY or GOOGLE_API_KEY
//! let answer = model.invoke(ChatRequest::new(vec![Message::user("Hi!")])).await?;
//! println!("{}", answer.message.text());
//! # Ok(()) }
//! ```
//!
//! Gemini gives function calls no ids (newer models sometimes do): ids are synthesized as
//! `gemini_call_<response id>_<k>`, stable for one answer, and results are matched back by
//! tool name and order. `thoughtSignature`s are kept and sent back on the part they came with.
//! `MAX_TOKENS` is [`FinishReason::Length`](crate::model::FinishReason::Length); `SAFETY`,
//! `RECITATION`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII` and a blocked prompt are
//! `ContentFilter`. Usage counts thought tokens as output (and as reasoning) and cached
//! content tokens as cached input.

mod builder;
mod errors;
mod request;
mod response;
mod stream;

pub use builder::GeminiModelBuilder;

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
pub(crate) const PROVIDER: &str = "gemini";

/// The prefix of the call ids this SDK synthesizes (they are never sent to Gemini).
pub(crate) const SYNTHETIC_ID_PREFIX: &str = "gemini_call_";

/// A Gemini model served through the Generative Language API.
///
/// Cloning is cheap and shares the connection pool, the rate limiter and the usage tracker.
/// `Debug` never shows the API key. The lowering is described in the `request` module: system
/// messages become `systemInstruction`, tools `functionDeclarations` in the
/// [`Dialect::Gemini`](crate::Dialect::Gemini) dialect, `tool_choice` the function calling
/// mode (`AUTO`, `NONE`, `ANY`, `ANY` with one allowed name), JSON-schema output
/// `generationConfig.responseJsonSchema`. `parallel_tool_calls: false` cannot be expressed and
/// is dropped with a warning.
#[derive(Clone)]
pub struct GeminiModel {
    inner: Arc<Inner>,
}

struct Inner {
    model: String,
    endpoint: reqwest::Url,
    stream_endpoint: reqwest::Url,
    transport: Transport,
    profile: ModelProfile,
    thinking_budget: Option<i32>,
    tracker: Option<UsageTracker>,
}

impl GeminiModel {
    /// A builder. The key comes from `GEMINI_API_KEY`, else `GOOGLE_API_KEY`; the base URL
    /// from `GEMINI_BASE_URL`, else `https://generativelanguage.googleapis.com`.
    pub fn builder(model: impl Into<String>) -> GeminiModelBuilder {
        GeminiModelBuilder::new(model.into())
    }

    /// The URL of non-streamed requests (`.../models/<model>:generateContent`).
    pub fn endpoint(&self) -> &str {
        self.inner.endpoint.as_str()
    }
}

impl Inner {
    fn call<'a>(&'a self, url: &'a reqwest::Url) -> Call<'a> {
        Call {
            provider: PROVIDER,
            model: &self.model,
            url,
            errors: errors::error_from_response,
        }
    }

    fn body(&self, request: &ChatRequest) -> Result<Bytes, ModelError> {
        let wire = request::lower(request, &self.model, self.thinking_budget)?;
        serde_json::to_vec(&wire)
            .map(Bytes::from)
            .map_err(|e| ModelError::Decode(format!("could not encode the request: {e}")))
    }

    fn decode(&self, bytes: &[u8]) -> Result<ChatResponse, ModelError> {
        let wire: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| self.transport.decode_error(e, bytes))?;
        response::convert(&wire, &self.model)
    }

    async fn invoke(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let body = self.body(request)?;
        let bytes = self
            .transport
            .post(&self.call(&self.endpoint), body)
            .await?;
        self.decode(&bytes)
    }

    async fn open_stream(&self, request: &ChatRequest) -> Result<EventStream, ModelError> {
        let body = self.body(request)?;
        match self
            .transport
            .open(&self.call(&self.stream_endpoint), body)
            .await?
        {
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

impl fmt::Debug for GeminiModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        f.debug_struct("GeminiModel")
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
            .field("thinking_budget", &i.thinking_budget)
            .finish_non_exhaustive()
    }
}

impl ChatModel for GeminiModel {
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
