//! Provider implementations of [`ChatModel`](crate::model::ChatModel).

//!
//! Each wire format is behind its cargo feature (all on by default): `openai` (Chat Completions,
//! every OpenAI-compatible server, and the Responses API), `anthropic`, `gemini`.

mod answer_guard;
#[cfg(feature = "anthropic")]
pub mod anthropic;
mod body_size;
mod clients;
mod driver;
#[cfg(any(feature = "openai", feature = "gemini"))]
mod embedding_http;
#[cfg(all(test, feature = "openai"))]
mod future_size;
#[cfg(all(
    feature = "fuzzing",
    feature = "openai",
    feature = "anthropic",
    feature = "gemini"
))]
pub(crate) mod fuzz;
#[cfg(feature = "gemini")]
pub mod gemini;
pub(crate) mod inputs;
#[cfg(feature = "openai")]
pub mod openai;
#[cfg(feature = "openai")]
pub mod openai_responses;
mod registry;
mod settings;
mod stream;
mod transport;

#[cfg(feature = "openai")]
pub use registry::chat_model_builder;
pub use registry::init_chat_model;
