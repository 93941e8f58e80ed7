//! Provider implementations of [`ChatModel`](crate::model::ChatModel).
