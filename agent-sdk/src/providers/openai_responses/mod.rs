//! OpenAI's Responses API (`POST /v1/responses`).
//!
//! ```no_run
//! use agent_sdk::model::{ChatModel, ChatRequest};
//! use agent_sdk::providers::openai_responses::OpenAiResponsesModel;
//! use agent_sdk::Message;
//!
//! # async fn run() -> Result<(), agent_sdk::model::ModelError> {
//! let model = OpenAiResponsesModel::builder("o4-mini") // key from OPENAI_API_KEY
//!     .reasoning_effort("low")
//!     .build()?;
//! let answer = model.invoke(ChatRequest::new(vec![Message::user("Hi!")])).await?;
//! println!("{}", answer.message.text());
//! # Ok(()) }
//! ```
//!
//! Requests are sent with `store: false` by default, so nothing is kept on OpenAI's side;
//! reasoning items then come back with their encrypted content and are carried in the
//! conversation as [`ContentBlock::Reasoning`](crate::ContentBlock::Reasoning) blocks whose
//! signature is the item itself, sent back unchanged on the next request (a follow-up to a
//! reasoning model's function call without them is rejected). `response.incomplete` with
//! `max_output_tokens` is [`FinishReason::Length`](crate::model::FinishReason::Length).

mod builder;
mod errors;
mod request;
mod response;
mod stream;

pub use builder::OpenAiResponsesModelBuilder;

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
pub(crate) const PROVIDER: &str = "openai-responses";

/// A model served through the Responses API.
///
/// Cloning is cheap and shares the connection pool, the rate limiter and the usage tracker.
/// `Debug` never shows the API key. Stop sequences and `seed` have no Responses API
/// equivalent and are dropped with a warning, as is `temperature` for a reasoning model.
#[derive(Clone)]
pub struct OpenAiResponsesModel {
    inner: Arc<Inner>,
}

struct Inner {
    model: String,
    endpoint: reqwest::Url,
    transport: Transport,
    profile: ModelProfile,
    store: bool,
    reasoning_effort: Option<String>,
    tracker: Option<UsageTracker>,
}

impl OpenAiResponsesModel {
    /// A builder. The key defaults to `OPENAI_API_KEY` and the base URL to `OPENAI_BASE_URL`,
    /// else `https://api.openai.com/v1`.
    pub fn builder(model: impl Into<String>) -> OpenAiResponsesModelBuilder {
        OpenAiResponsesModelBuilder::new(model.into())
    }

    /// The URL requests are sent to (`.../responses`).
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
            profile: &self.profile,
            store: self.store,
            reasoning_effort: self.reasoning_effort.as_deref(),
        };
        let wire = request::lower(request, &opts, stream)?;
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

impl fmt::Debug for OpenAiResponsesModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        f.debug_struct("OpenAiResponsesModel")
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
            .field("store", &i.store)
            .field("reasoning_effort", &i.reasoning_effort)
            .finish_non_exhaustive()
    }
}

impl ChatModel for OpenAiResponsesModel {
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
