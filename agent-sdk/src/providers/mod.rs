//! Provider implementations of [`ChatModel`](crate::model::ChatModel).

pub mod openai;
pub mod anthropic;
pub mod gemini;
mod transport;
