//! Google Gemini's `generateContent` and `streamGenerateContent?alt=sse`.
//!
//! ```no_run
//! use agentry::model::{ChatModel, ChatRequest};
//! use agentry::providers::gemini::GeminiModel;
//! use agentry::Message;
//!
//! # async fn run() -> Result<(), agentry::model::ModelError> {
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
mod embeddings;
mod errors;
mod request;
mod response;
mod stream;

pub use builder::GeminiModelBuilder;
pub use embeddings::{GeminiEmbeddingModel, GeminiEmbeddingModelBuilder};

use std::fmt;

use bytes::Bytes;

use super::driver::{Driver, ProviderModel, WireFormat, encode};
use super::transport::ErrorMapper;
use crate::model::{ChatRequest, ChatResponse, ModelError, ModelProfile, UsageTracker};

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
///
/// It implements [`ChatModel`](crate::model::ChatModel).
#[derive(Clone)]
pub struct GeminiModel {
    driver: Driver<Gemini>,
}

/// The Gemini wire format and its settings.
pub(crate) struct Gemini {
    thinking_budget: Option<i32>,
}

impl GeminiModel {
    /// A builder. The key comes from `GEMINI_API_KEY`, else `GOOGLE_API_KEY`; the base URL
    /// from `GEMINI_BASE_URL`, else `https://generativelanguage.googleapis.com`.
    pub fn builder(model: impl Into<String>) -> GeminiModelBuilder {
        GeminiModelBuilder::new(model.into())
    }

    /// The URL of non-streamed requests (`.../models/<model>:generateContent`).
    pub fn endpoint(&self) -> &str {
        self.driver.endpoint()
    }

    /// The usage tracker attached when the model was built, if any.
    pub fn usage_tracker(&self) -> Option<&UsageTracker> {
        self.driver.tracker()
    }
}

impl WireFormat for Gemini {
    type Answer = serde_json::Value;
    type Decoder = stream::Decoder;
    const MODEL_TYPE: &'static str = "GeminiModel";
    const ERRORS: ErrorMapper = errors::error_from_response;

    fn provider(&self) -> &str {
        PROVIDER
    }

    fn body(
        &self,
        model: &str,
        profile: &ModelProfile,
        request: &ChatRequest,
        _stream: bool,
        buffer: Vec<u8>,
    ) -> Result<Bytes, ModelError> {
        super::inputs::check(
            &request.messages,
            PROVIDER,
            model,
            profile,
            request::accepts,
        )?;
        encode(
            &request::lower(request, model, self.thinking_budget)?,
            buffer,
        )
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
            .get("candidates")
            .is_none()
            .then(|| errors::envelope_error(error))
    }

    fn debug_fields(&self, debug: &mut fmt::DebugStruct<'_, '_>) {
        debug.field("thinking_budget", &self.thinking_budget);
    }
}

impl ProviderModel for GeminiModel {
    type Format = Gemini;

    fn driver(&self) -> &Driver<Gemini> {
        &self.driver
    }
}

impl fmt::Debug for GeminiModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.driver.fmt_debug(f)
    }
}
