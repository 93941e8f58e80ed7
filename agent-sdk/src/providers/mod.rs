//! Provider implementations of [`ChatModel`](crate::model::ChatModel).

pub mod openai;
pub mod anthropic;
mod transport;
