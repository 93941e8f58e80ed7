//! [`IntoSharedModel`]: what an agent (or a middleware, or a sub-agent) accepts as its model.

use std::sync::Arc;

use super::{ChatModel, SharedModel};

/// Anything that can be an agent's model: a [`SharedModel`], an `Arc<M>`, a `Box<dyn
/// ChatModel>` or a model by value.
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

impl<M: ChatModel> IntoSharedModel for M {
    fn into_shared_model(self) -> SharedModel {
        Arc::new(self)
    }
}
