//! ReAct: tools driven through text (`Thought:` / `Action:` / `Action Input:` / `Observation:` /
//! `Final Answer:`) for models without native function calling.
//!
//! - [`parse`]: one complete reply into a [`ReactReply`] or a [`ReactParseError`] whose text is
//!   the correction to send back to the model;
//! - [`ReactStream`]: the same parse fed text deltas, emitting thought and final-answer deltas and
//!   the action as soon as its input is complete;
//! - [`ReactPrompt`]: the system prompt (tools, format instructions, scratchpad) from a
//!   user-overridable template;
//! - [`turn`]: one turn of the agent loop, a native-shaped request rendered as text and the
//!   reply read back; [`ReactModel`] does that around any [`ChatModel`](crate::model::ChatModel).

mod markers;
mod model;
mod parser;
mod prompt;
mod reply;
mod stream;
pub mod turn;

pub use model::ReactModel;
pub use parser::parse;
pub use prompt::{
    DEFAULT_TEMPLATE, ReactPrompt, ReactStepRecord, STOP_SEQUENCE, TemplateError, compact_schema,
    format_instructions, render_scratchpad, render_tools,
};
pub use reply::{ActionInput, JsonObject, ReactAction, ReactParseError, ReactReply, ReactStep};
pub use stream::{ReactEvent, ReactStream};
pub use turn::{ReplyContext, correction, read_reply};
