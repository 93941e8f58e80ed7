//! The output spec `#[agent]` puts in place of an output type it rejected.

use std::marker::PhantomData;

use super::{OutputParse, OutputSpec};
use crate::message::AssistantMessage;
use crate::model::{ChatRequest, ModelProfile};

/// Stands in for an output type `#[agent]` rejected with an error of its own (a tuple, a
/// reference, an array), so the agent's uses (`Critic::builder(..).build()`,
/// `run.output`) type-check and add no second error. A crate containing it does not compile,
/// so it never runs; were it run, it would refuse every answer.
pub struct RejectedOutput<T>(PhantomData<fn() -> T>);

impl<T> RejectedOutput<T> {
    /// The stand-in.
    pub fn new() -> Self {
        RejectedOutput(PhantomData)
    }
}

impl<T> Default for RejectedOutput<T> {
    fn default() -> Self {
        RejectedOutput::new()
    }
}

impl<T> std::fmt::Debug for RejectedOutput<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RejectedOutput")
    }
}

impl<T: Send + 'static> OutputSpec for RejectedOutput<T> {
    type Output = T;

    fn prepare(&self, _: &mut ChatRequest, _: &ModelProfile, _: bool) {}

    fn is_output_tool(&self, _: &str) -> bool {
        false
    }

    fn parse(&self, _: &AssistantMessage) -> OutputParse<T> {
        OutputParse::Refused("the agent's output type was rejected when it was compiled".into())
    }
}
