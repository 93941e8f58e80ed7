//! OpenAI's Responses API (`POST /v1/responses`).
//!
//! ```no_run
//! use agentry::model::{ChatModel, ChatRequest};
//! use agentry::providers::openai_responses::OpenAiResponsesModel;
//! use agentry::Message;
//!
//! # async fn run() -> Result<(), agentry::model::ModelError> {
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
mod prompt;
mod request;
mod response;
mod stream;

pub use builder::OpenAiResponsesModelBuilder;
pub use prompt::{PromptVariable, StoredPrompt};

use std::fmt;

use bytes::Bytes;

use super::driver::{Driver, ProviderModel, WireFormat, encode};
use super::transport::ErrorMapper;
use crate::model::{ChatRequest, ChatResponse, ModelError, ModelProfile, UsageTracker};

/// The provider name of content blocks this provider keeps as they came.
pub(crate) const PROVIDER: &str = "openai-responses";

/// A model served through the Responses API.
///
/// Cloning is cheap and shares the connection pool, the rate limiter and the usage tracker.
/// `Debug` never shows the API key. Stop sequences and `seed` have no Responses API
/// equivalent and are dropped with a warning, as is `temperature` for a reasoning model.
///
/// It implements [`ChatModel`](crate::model::ChatModel).
#[derive(Clone)]
pub struct OpenAiResponsesModel {
    driver: Driver<Responses>,
}

/// The Responses API wire format and its settings.
pub(crate) struct Responses {
    store: bool,
    reasoning_effort: Option<String>,
    reasoning_summary: String,
    prompt: Option<StoredPrompt>,
}

impl OpenAiResponsesModel {
    /// A builder. The key defaults to `OPENAI_API_KEY` and the base URL to `OPENAI_BASE_URL`,
    /// else `https://api.openai.com/v1`.
    pub fn builder(model: impl Into<String>) -> OpenAiResponsesModelBuilder {
        OpenAiResponsesModelBuilder::new(model.into())
    }

    /// The URL requests are sent to (`.../responses`).
    pub fn endpoint(&self) -> &str {
        self.driver.endpoint()
    }

    /// The usage tracker attached when the model was built, if any.
    pub fn usage_tracker(&self) -> Option<&UsageTracker> {
        self.driver.tracker()
    }
}

impl WireFormat for Responses {
    type Answer = serde_json::Value;
    type Decoder = stream::Decoder;
    const MODEL_TYPE: &'static str = "OpenAiResponsesModel";
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
        let opts = request::LowerOptions {
            model,
            profile,
            store: self.store,
            reasoning_effort: self.reasoning_effort.as_deref(),
            reasoning_summary: &self.reasoning_summary,
            prompt: self.prompt.as_ref(),
        };
        encode(&request::lower(request, &opts, stream)?, buffer)
    }

    fn convert(&self, answer: Self::Answer, model: &str) -> Result<ChatResponse, ModelError> {
        response::convert(&answer, model)
    }

    fn decoder(&self, model: &str) -> Self::Decoder {
        stream::Decoder::new(model.to_owned())
    }

    fn error_envelope(&self, answer: &Self::Answer) -> Option<ModelError> {
        let error = answer.get("error").filter(|e| !e.is_null())?;
        answer
            .get("output")
            .is_none()
            .then(|| errors::envelope_error(error))
    }

    fn debug_fields(&self, debug: &mut fmt::DebugStruct<'_, '_>) {
        debug
            .field("store", &self.store)
            .field("reasoning_effort", &self.reasoning_effort)
            .field("reasoning_summary", &self.reasoning_summary);
    }
}

impl ProviderModel for OpenAiResponsesModel {
    type Format = Responses;

    fn driver(&self) -> &Driver<Responses> {
        &self.driver
    }
}

impl fmt::Debug for OpenAiResponsesModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.driver.fmt_debug(f)
    }
}
