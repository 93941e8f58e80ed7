//! [`IntoSharedModel`]: what an agent (or a middleware, or a sub-agent) accepts as its model.

use std::sync::Arc;

use super::{ChatModel, SharedModel};

/// Anything that can be an agent's model: a [`SharedModel`], an `Arc<M>`, a `Box<dyn
/// ChatModel>` or a model by value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a chat model",
    label = "an agent's model goes here",
    note = "pass a model value (an `OpenAiModel`, `AnthropicModel` or `GeminiModel` from its builder; `agentry::testing::ScriptedModel` in tests), a `SharedModel` or an `Arc` of a model; a model named in text is made by `init_chat_model(\"openai:gpt-4o\")?`, which returns a `Result` to unwrap with `?`"
)]
pub trait IntoSharedModel {
    /// The conversion.
    fn into_shared_model(self) -> SharedModel;
}

impl IntoSharedModel for SharedModel {
    fn into_shared_model(self) -> SharedModel {
        self
    }
}

impl IntoSharedModel for Box<dyn ChatModel> {
    fn into_shared_model(self) -> SharedModel {
        Arc::from(self)
    }
}

impl<M: ChatModel> IntoSharedModel for Arc<M> {
    fn into_shared_model(self) -> SharedModel {
        self
    }
}

#[diagnostic::do_not_recommend]
impl<M: ChatModel> IntoSharedModel for M {
    fn into_shared_model(self) -> SharedModel {
        Arc::new(self)
    }
}
