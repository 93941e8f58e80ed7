//! Guardrails that come with the crate: [`PiiCheck`] (personal data, with the PII
//! middleware's detectors), [`BlockList`] (keywords and regular expressions), [`MaxLength`]
//! and [`LlmJudge`] (another model's typed verdict).
//!
//! Each text check works as any kind of guardrail: on the user's message (`input(..)`), on
//! the output (`output(..)`: every string in it, as it serializes), on a tool call's
//! arguments (`tool_input(..)`) and on a tool's result (`tool_output(..)`).

mod block_list;
mod judge;
mod max_length;
mod pii;
mod text;

pub use block_list::{BlockList, Listed};
pub use judge::{JudgeReason, JudgeVerdict, LlmJudge, SafetyVerdict};
pub use max_length::{MaxLength, TooLong};
pub use pii::{PiiCheck, PiiFound};
