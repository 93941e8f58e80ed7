//! Provider implementations of [`ChatModel`](crate::model::ChatModel).

pub mod openai;
