//! Provider implementations of [`ChatModel`](crate::model::ChatModel).

mod answer_guard;
pub mod anthropic;
mod driver;
pub mod gemini;
pub mod openai;
pub mod openai_responses;
mod settings;
mod stream;
mod transport;
