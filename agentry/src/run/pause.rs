//! A run that stopped before its tool calls ran: [`Pause`] (a value that serializes) and the
//! [`Outcome`] of a run that may pause. Going on from it is
//! [`Agent::resume`](crate::agent::Agent::resume).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::PartialRun;
use super::result::RunResult;
use super::review::ReviewRequest;
use super::snapshot::RunSnapshot;
use crate::message::ToolCall;
use crate::model::ChatResponse;
use crate::tool::{Tool, ToolCallError, parse_arguments};

/// The format of a serialized [`Pause`]; [`Agent::resume`](crate::agent::Agent::resume)
/// refuses others.
pub const PAUSE_FORMAT_VERSION: u32 = 1;

/// How a run that may pause ended: finished, or stopped for review.
#[derive(Debug)]
pub enum Outcome<T, S> {
    /// The run finished.
    Finished(RunResult<T, S>),
    /// The run stopped before running tool calls a reviewer must decide on.
    Interrupted(Box<Pause<S>>),
}

impl<T, S> Outcome<T, S> {
    /// The result, if the run finished.
    pub fn finished(self) -> Option<RunResult<T, S>> {
        match self {
            Outcome::Finished(result) => Some(result),
            Outcome::Interrupted(_) => None,
        }
    }

    /// The pause, if the run stopped for review.
    pub fn interrupted(self) -> Option<Pause<S>> {
        match self {
            Outcome::Interrupted(pause) => Some(*pause),
            Outcome::Finished(_) => None,
        }
    }
}

/// A run stopped before running the tool calls of one model answer, because a reviewer must
/// decide on some of them. A value: serialize it (with serde), store it, and pass it to
/// [`Agent::resume`](crate::agent::Agent::resume) in this process or another.
///
/// It holds the run as it was before the answer's request ([`RunSnapshot`]), the answer
/// itself (so resuming never asks the model again for it), and every call of the answer with
/// its parsed arguments and, for reviewed calls, what the reviewer is asked.
///
/// The context is not part of it (pass it to `resume`), and `max_execution_time` counts again
/// from the resume: the time spent waiting for a reviewer does not count.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pause<S> {
    /// [`PAUSE_FORMAT_VERSION`] when written.
    pub format_version: u32,
    /// The run before the paused request.
    pub snapshot: RunSnapshot<S>,
    /// The paused answer.
    pub answer: PausedAnswer,
    /// The answer's calls, in the model's order.
    pub calls: Vec<PendingCall>,
}

/// The model's answer whose calls wait for review.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PausedAnswer {
    /// The request's number in the run (1-based).
    pub turn: u32,
    /// The answer, with its usage.
    pub response: ChatResponse,
}

/// One call of the paused answer.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PendingCall {
    /// The call as the model wrote it.
    pub call: ToolCall,
    /// Its arguments parsed as JSON (`null` when they are not valid JSON: the model will be
    /// told when the call runs).
    pub arguments: Value,
    /// What the reviewer is asked, when the call is under review; `None` for calls that run
    /// without review.
    pub review: Option<ReviewRequest>,
}

impl PendingCall {
    /// The arguments as tool `T`'s typed arguments.
    pub fn arguments_as<T: Tool>(&self) -> Result<T::Args, ToolCallError> {
        parse_arguments::<T::Args>(T::NAME, &self.call.arguments, T::definition().strict)
    }
}

impl<S> Pause<S> {
    /// The reviews waiting for a decision, in the model's call order.
    pub fn reviews(&self) -> impl Iterator<Item = &ReviewRequest> {
        self.calls.iter().filter_map(|c| c.review.as_ref())
    }

    /// The typed state at the pause.
    pub fn state(&self) -> &S {
        &self.snapshot.state
    }

    pub(crate) fn partial(&self) -> PartialRun {
        PartialRun {
            messages: self.snapshot.messages.clone(),
            usage: self.snapshot.usage,
            request_usage: self.snapshot.request_usage.clone(),
            steps: self.snapshot.steps.clone(),
        }
    }
}

/// Why [`Agent::resume`](crate::agent::Agent::resume) refused a pause or its decisions.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ResumeError {
    /// The pause was written in another format.
    #[error("this pause is in format {found}; this version of agentry reads format {expected}")]
    Version {
        /// The pause's format.
        found: u32,
        /// The format this version reads.
        expected: u32,
    },
    /// A reviewed call has no decision.
    #[error("call `{call_id}` of tool `{tool}` is under review and has no decision")]
    MissingDecision {
        /// The call.
        call_id: String,
        /// Its tool.
        tool: String,
    },
    /// A decision names a call that is not under review in this pause.
    #[error("call `{call_id}` is not under review in this pause")]
    NotUnderReview {
        /// The call id the decision named.
        call_id: String,
    },
    /// Two decisions for one call.
    #[error("call `{call_id}` has more than one decision")]
    DuplicateDecision {
        /// The call.
        call_id: String,
    },
    /// The decision is not one the policy allows for this tool.
    #[error("decision `{decision}` is not allowed for tool `{tool}`; allowed: {allowed}")]
    NotAllowed {
        /// The call.
        call_id: String,
        /// Its tool.
        tool: String,
        /// The decision taken.
        decision: super::review::DecisionKind,
        /// The decisions allowed.
        allowed: super::review::Allowed,
    },
    /// Edited arguments do not fit the tool's arguments.
    #[error("the edited arguments of call `{call_id}` are invalid: {error}")]
    InvalidEdit {
        /// The call.
        call_id: String,
        /// What is wrong, with the JSON path.
        error: ToolCallError,
    },
}

/// Builds the pending calls of a paused answer.
pub(crate) fn pending_calls(calls: &[ToolCall], reviews: Vec<ReviewRequest>) -> Vec<PendingCall> {
    let mut reviews: Vec<Option<ReviewRequest>> = reviews.into_iter().map(Some).collect();
    calls
        .iter()
        .map(|call| PendingCall {
            call: call.clone(),
            arguments: serde_json::from_str(call.arguments.trim()).unwrap_or(Value::Null),
            review: reviews
                .iter_mut()
                .find(|r| r.as_ref().is_some_and(|r| r.call_id == call.id))
                .and_then(Option::take),
        })
        .collect()
}
