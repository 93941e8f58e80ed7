//! OpenAI Chat Completions, and every server that speaks it (Ollama, vLLM, Groq, OpenRouter,
//! Together, LM Studio...).
//!
//! ```no_run
//! use std::time::Duration;
//! use agentry::model::{ChatModel, ChatRequest};
//! use agentry::providers::openai::OpenAiModel;
//! use agentry::http::RateLimit;
//! use agentry::Message;
//!
//! # async fn run() -> Result<(), agentry::model::ModelError> {
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
mod choices;
mod chunk;
mod custom_tool;
mod embeddings;
mod errors;
mod lower_messages;
mod media;
mod request;
mod response;
mod stream;
mod wire;

pub use builder::OpenAiModelBuilder;
pub use choices::{ChatChoices, ChoiceEvent};
pub use embeddings::{OpenAiEmbeddingModel, OpenAiEmbeddingModelBuilder};
pub use stream::{decode_chat_stream, decode_chat_stream_with};

use std::fmt;

use bytes::Bytes;

use super::driver::{Driver, ProviderModel, WireFormat, encode};
use super::transport::ErrorMapper;
use crate::model::{ChatRequest, ChatResponse, ModelError, ModelProfile, UsageTracker};

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
/// | `temperature`, `top_p` on a reasoning model | dropped with a warning |
/// | usage in streams | `stream_options` not sent |
/// | an image, PDF or audio part the profile says the model cannot take (`image_input`, `pdf_input`, `audio_input`; only for models the table knows or a changed profile) | refused with [`ModelError::UnsupportedInput`] |
/// | a file URL, an inline file other than a PDF, audio other than wav or mp3 | refused with [`ModelError::UnsupportedInput`] |
///
/// Reasoning models (the `reasoning` of [`ModelProfile::for_model`]: o1, o3, o4-mini, gpt-5
/// and later) get `max_completion_tokens` and, with
/// [`reasoning_effort`](OpenAiModelBuilder::reasoning_effort), `reasoning_effort`.
///
/// It implements [`ChatModel`](crate::model::ChatModel).
#[derive(Clone)]
pub struct OpenAiModel {
    driver: Driver<ChatCompletions>,
}

/// The Chat Completions wire format and its settings.
pub(crate) struct ChatCompletions {
    provider: String,
    pub(crate) max_tokens_field: MaxTokensField,
    /// `reasoning_effort` for a reasoning model.
    pub(crate) reasoning_effort: Option<String>,
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
        self.driver.endpoint()
    }

    /// The usage tracker attached when the model was built, if any.
    pub fn usage_tracker(&self) -> Option<&UsageTracker> {
        self.driver.tracker()
    }
}

impl WireFormat for ChatCompletions {
    type Answer = wire::WireResponse;
    type Decoder = stream::Decoder;
    const MODEL_TYPE: &'static str = "OpenAiModel";
    const ERRORS: ErrorMapper = errors::error_from_response;

    fn provider(&self) -> &str {
        &self.provider
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
            &self.provider,
            model,
            profile,
            media::accepts,
        )?;
        let opts = request::LowerOptions {
            model,
            profile,
            max_tokens_field: self.max_tokens_field,
            reasoning_effort: self.reasoning_effort.as_deref(),
        };
        encode(&request::lower(request, &opts, stream)?, buffer)
    }

    fn convert(&self, answer: Self::Answer, model: &str) -> Result<ChatResponse, ModelError> {
        response::convert(answer, model)
    }

    fn decoder(&self, model: &str) -> Self::Decoder {
        stream::Decoder::new(model.to_owned())
    }

    fn error_envelope(&self, answer: &Self::Answer) -> Option<ModelError> {
        match &answer.error {
            Some(error) if !error.is_null() && answer.choices.is_empty() => {
                Some(errors::envelope_error(error))
            }
            _ => None,
        }
    }

    fn debug_fields(&self, debug: &mut fmt::DebugStruct<'_, '_>) {
        debug
            .field("max_tokens_field", &self.max_tokens_field)
            .field("reasoning_effort", &self.reasoning_effort);
    }
}

impl ProviderModel for OpenAiModel {
    type Format = ChatCompletions;

    fn driver(&self) -> &Driver<ChatCompletions> {
        &self.driver
    }
}

impl fmt::Debug for OpenAiModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.driver.fmt_debug(f)
    }
}
