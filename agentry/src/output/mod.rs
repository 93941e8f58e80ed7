//! Final answers: how the runtime asks a model for one and turns it into a typed value.
//!
//! [`OutputSpec`] is the seam between the agent loop (and the model-level structured-output
//! API) and the output strategies. [`TextOutput`] takes the answer's text as it is;
//! [`StructuredSpec`] asks for a [`StructuredOutput`] type in an [`OutputMode`] (native
//! response format, final-answer tool, or prompted JSON), validates the answer and asks the
//! model to correct it. [`StructuredExt::structured`] does the same for a single model call,
//! with no agent, and streams partial values parsed by the incremental [`PartialJson`].

mod closed;
pub(crate) mod derive_bounds;
pub(crate) mod derive_support;
mod error;
mod extract;
mod model_api;
mod parse;
mod partial;
pub(crate) mod partial_feed;
mod partial_output;
mod reask;
mod strategy;
mod structured;
mod typed_partial;
mod validate;

/// `#[derive(StructuredOutput)]`: see the trait of the same name.
pub use agentry_macros::StructuredOutput;
pub use error::{AnswerError, FailedAttempt, StructuredError};
pub use extract::extract_json;
pub use model_api::{ParseFailure, StructuredEvent, StructuredExt, StructuredModel, WithRaw};
pub use parse::{WRAPPER_KEY, parse_output};
pub use partial::{PartialError, PartialJson};
pub use partial_output::PartialOutput;
pub use reask::{DEFAULT_MAX_RETRIES, correction_messages};
pub use strategy::{Interpretation, OutputMode, StructuredSpec};
pub use structured::{SchemaPatch, StructuredOutput, output_schema};
pub use typed_partial::{HasPartial, OpenSeg, Partial};
pub use validate::{
    LengthKind, LengthValue, PatternValue, RangeValue, Validation, ValidationError, Violation,
};

use crate::message::{AssistantMessage, Message};
use crate::model::{ChatRequest, ModelProfile};

/// How a final answer is requested and parsed.
///
/// The agent loop calls [`OutputSpec::prepare`] on every request, then hands each answer to
/// [`OutputSpec::parse`], which says whether the run is finished, must go on (the model called
/// ordinary tools), or must ask the model again because its answer was invalid.
pub trait OutputSpec: Send + Sync + 'static {
    /// The typed final answer.
    type Output: Send + 'static;

    /// Adjusts a request so the model can give a final answer: adds a response format,
    /// a final-answer tool or instructions. `tools_pending` is true when the model may still
    /// need to call the agent's ordinary tools on this turn.
    fn prepare(&self, request: &mut ChatRequest, profile: &ModelProfile, tools_pending: bool);

    /// Whether `name` is a synthetic final-answer tool of this spec (such calls are not
    /// dispatched to the agent's tools).
    fn is_output_tool(&self, name: &str) -> bool;

    /// Interprets an answer.
    fn parse(&self, message: &AssistantMessage) -> OutputParse<Self::Output>;

    /// Whether the output's JSON is wrapped as `{"value": ...}` in native and tool modes (a
    /// root that is not an object); partial values are unwrapped.
    fn is_wrapped(&self) -> bool {
        false
    }

    /// Whether `request`, as prepared, asks for the answer as JSON text in a native
    /// response format (so text deltas are the output's JSON).
    fn streams_native(&self, request: &ChatRequest) -> bool {
        let _ = request;
        false
    }

    /// Whether `request`, as [`prepare`](Self::prepare)d, sent the provider a closed schema
    /// for the answer (strict mode: `additionalProperties: false` on every object).
    fn sent_closed(&self, request: &ChatRequest) -> bool {
        let _ = request;
        false
    }

    /// Interprets an answer to a request for which [`sent_closed`](Self::sent_closed) said
    /// `closed`: the answer is then held to the closed schema (a field it forbids is invalid).
    fn parse_closed(&self, message: &AssistantMessage, closed: bool) -> OutputParse<Self::Output> {
        let _ = closed;
        self.parse(message)
    }
}

/// What an answer means for the run.
#[derive(Debug)]
pub enum OutputParse<T> {
    /// The answer calls ordinary tools: run them and continue.
    Continue,
    /// The final, valid output.
    Done(T),
    /// The answer was meant to be final but is invalid. Append `feedback` (a correction
    /// request that keeps the history valid for every provider) and ask again.
    Retry {
        /// Messages to append after the model's answer.
        feedback: Vec<Message>,
        /// What was wrong, for the run's record and the final error.
        error: String,
    },
    /// The model refused to answer.
    Refused(String),
}

/// Plain text output: the answer's text, once the model stops calling tools.
#[derive(Clone, Copy, Debug, Default)]
pub struct TextOutput;

impl OutputSpec for TextOutput {
    type Output = String;

    fn prepare(&self, _request: &mut ChatRequest, _profile: &ModelProfile, _tools_pending: bool) {}

    fn is_output_tool(&self, _name: &str) -> bool {
        false
    }

    fn parse(&self, message: &AssistantMessage) -> OutputParse<String> {
        if let Some(refusal) = &message.refusal {
            return OutputParse::Refused(refusal.clone());
        }
        if message.tool_calls.is_empty() {
            OutputParse::Done(message.text())
        } else {
            OutputParse::Continue
        }
    }
}
