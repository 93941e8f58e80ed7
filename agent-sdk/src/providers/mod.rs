//! Provider implementations of [`ChatModel`](crate::model::ChatModel).

pub mod openai;
pub mod anthropic;
pub mod gemini;
pub mod openai_responses;
mod transport;
