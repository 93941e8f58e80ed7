//! Chat models: the [`ChatModel`] trait and the values that cross it.
//!
//! A model takes a [`ChatRequest`] (messages, tool definitions, settings) and answers with a
//! [`ChatResponse`], or with a stream of [`StreamEvent`]s that ends in the same response.
//! Every provider lowers the request into its own wire format and refuses, with a typed
//! [`ModelError`], settings its [`ModelProfile`] says it cannot honour.

mod bind_tools;
mod cache;
mod error;
mod event;
mod ext;
mod known_models;
mod profile;
mod profile_lookup;
pub(crate) mod provider_tool;
mod request;
mod response;
mod settings;
mod shared;
mod usage_tracker;

pub use bind_tools::{BoundTools, ToolAnswer, TypedCall};
pub use cache::PromptCache;
pub use error::ModelError;
pub use event::StreamEvent;
pub use ext::ChatModelExt;
pub use profile::ModelProfile;
pub use provider_tool::ProviderTool;
pub use request::{ChatRequest, ResponseFormat, ToolChoice, Tools};
pub use response::{ChatResponse, FinishReason};
pub use settings::ModelSettings;
pub use shared::IntoSharedModel;
pub use usage_tracker::UsageTracker;

// The provider registry lives with the providers (`providers/registry.rs`); these keep the
// paths `agentry::model::init_chat_model` and `agentry::model::chat_model_builder`. A
// re-export only: nothing in this room calls into `providers`.
#[cfg(feature = "openai")]
#[doc(inline)]
pub use crate::providers::chat_model_builder;
#[doc(inline)]
pub use crate::providers::init_chat_model;

use std::sync::Arc;

use futures::future::BoxFuture;
use futures::stream::BoxStream;

/// A stream of events from one model request. Errors arrive in the stream; a stream that ends
/// without [`StreamEvent::Completed`] was cut off.
pub type EventStream = BoxStream<'static, Result<StreamEvent, ModelError>>;

/// A chat model: one provider, one model name, its settings and its HTTP client.
///
/// The trait is object safe; models are usually held as [`SharedModel`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a chat model",
    label = "a model is expected here",
    note = "use a provider's model (an `OpenAiModel`, `AnthropicModel` or `GeminiModel` from its builder, or `init_chat_model(\"openai:gpt-4o\")?`), a test double from `agentry::testing`, or implement `agentry::model::ChatModel` for `{Self}`"
)]
pub trait ChatModel: Send + Sync + 'static {
    /// The model name sent to the provider, e.g. `gpt-4o-mini`.
    fn model_name(&self) -> &str;

    /// The provider's name, e.g. `openai`.
    fn provider(&self) -> &str;

    /// What the model supports.
    fn profile(&self) -> &ModelProfile;

    /// Sends a request and waits for the whole answer.
    fn invoke(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>>;

    /// Sends a request and streams the answer as it is produced. The last event is
    /// [`StreamEvent::Completed`] with the whole answer.
    fn stream(&self, request: ChatRequest) -> EventStream;
}

/// A model shared between agents, tasks and clones.
pub type SharedModel = Arc<dyn ChatModel>;
