//! A run that stopped before its tool calls ran: [`Pause`] (a value that serializes) and the
//! [`Outcome`] of a run that may pause. Going on from it is
//! [`Agent::resume`](crate::agent::Agent::resume).
//! How a pause is written and older formats read is in `pause_format`; sealing, in
//! `pause_seal`.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::PartialRun;
use super::result::RunResult;
use super::review::{Decision, ReviewRequest};
use super::snapshot::RunSnapshot;
use crate::message::{ToolCall, ToolResultMessage};
use crate::model::ChatResponse;
use crate::tool::{Question, QuestionKind, Tool, ToolCallError, parse_arguments};

/// The format of a serialized [`Pause`] this version writes. Reading upgrades a pause written
/// in format 1 and reads format 2 as it is (a format-2 pause keeps its `format_version`, so
/// its seal still matches); [`Agent::resume`](crate::agent::Agent::resume) refuses any other.
///
/// - **1**: the calls twice (in `answer.response.message.tool_calls` and in `calls`, with
///   their arguments parsed a third time), each review naming its call and tool again.
/// - **2** (current): each call once, in `calls`; the paused answer without its calls; a
///   review holds only its description and allowed decisions; an `id` (single use) and a
///   `seal` (see [`PauseKey`](super::PauseKey)).
/// - **3** (current): format 2, and a call may hold the [`question`](PendingCall::question)
///   it stopped at (an [`Interrupt`](crate::Interrupt) or an external tool) or the
///   [`result`](PendingCall::result) it had before the run paused. A format-2 reader
///   refuses it, rather than running those calls again.
pub const PAUSE_FORMAT_VERSION: u32 = 3;

/// The oldest format [`Agent::resume`](crate::agent::Agent::resume) reads as it is (format 1
/// is upgraded to it when read).
pub(crate) const OLDEST_READ_FORMAT: u32 = 2;

/// How a run that may pause ended: finished, or stopped for review, for a tool's question or
/// for the caller to run an external tool (all three are a [`Pause`]).
#[derive(Debug)]
pub enum Outcome<T, S> {
    /// The run finished.
    Finished(RunResult<T, S>),
    /// The run stopped before running tool calls a reviewer must decide on, or at a tool's
    /// question ([`Pause::questions`]), or at calls of external tools
    /// ([`Pause::external_calls`]).
    Paused(Box<Pause<S>>),
}

impl<T, S> Outcome<T, S> {
    /// The result, if the run finished.
    pub fn finished(self) -> Option<RunResult<T, S>> {
        match self {
            Outcome::Finished(result) => Some(result),
            Outcome::Paused(_) => None,
        }
    }

    /// The pause, if the run stopped for review.
    pub fn paused(self) -> Option<Pause<S>> {
        match self {
            Outcome::Paused(pause) => Some(*pause),
            Outcome::Finished(_) => None,
        }
    }
}

/// A run stopped before running the tool calls of one model answer, because a reviewer must
/// decide on some of them; or after running them, because some stopped at a question
/// ([`Interrupt`](crate::Interrupt)) or are external tools the caller runs
/// ([`Pause::questions`]). A value: serialize it (with serde), store it, and pass it to
/// [`Agent::resume`](crate::agent::Agent::resume) in this process or another.
///
/// It holds the run as it was before the answer's request ([`RunSnapshot`]), the answer
/// itself (so resuming never asks the model again for it), and every call of the answer.
///
/// # What a pause guarantees
///
/// - **One copy of each call.** The calls are in [`calls`](Pause::calls) only: what a
///   reviewer is shown there is what runs. The paused answer is kept without its calls and
///   rebuilt from `calls` on resume.
/// - **The agent's policy decides what needs a decision.** `resume` asks the agent's
///   middleware again which calls are reviewed and which decisions they allow; a review
///   removed from the JSON still needs its decision, and a widened `allowed` is ignored.
/// - **Only the agent's tools run.** A decision on a call of a tool the agent does not have
///   is refused ([`ResumeError::UnknownTool`](super::ResumeError::UnknownTool)).
/// - **Answers fit their questions.** An answer to a call's question is checked against the
///   answer type of the tool's [`Interrupt`](crate::Interrupt) (or an external tool's result
///   type) before anything runs
///   ([`ResumeError::InvalidAnswer`](super::ResumeError::InvalidAnswer)); a call that ran
///   before the pause keeps its saved [`result`](PendingCall::result) and does not run again.
/// - **Sealed, when the agent has a key.** With
///   [`AgentBuilder::pause_key`](crate::agent::AgentBuilder::pause_key), the pause carries
///   an HMAC-SHA256 [`seal`](Pause::seal) over all of it, and `resume` refuses a pause whose
///   seal is missing or does not match.
/// - **Single use, when the agent persists.** With a checkpointer or a store, the pause has
///   an [`id`](Pause::id) and a second resume is refused
///   ([`ResumeError::AlreadyResumed`](super::ResumeError::AlreadyResumed)): a checkpointer
///   records each resumed id atomically (a marker thread per resumed pause); a store, with
///   no checkpointer, holds a record of each pause from when it is made
///   ([`PAUSE_STORE_NAMESPACE`](crate::agent::PAUSE_STORE_NAMESPACE)) and the resume that
///   removes it is the one that runs. Without either, nothing records that a pause was
///   resumed: **the caller must make sure each pause is resumed once** (resuming twice runs
///   its tools twice). The id is only as trustworthy as the pause: seal pauses that pass
///   through hands that could drop or change it.
///
/// The context is not part of it (pass it to `resume`), and `max_execution_time` counts again
/// from the resume: the time spent waiting for a reviewer does not count.
#[derive(Clone, Debug, Serialize)]
pub struct Pause<S> {
    /// [`PAUSE_FORMAT_VERSION`] when written (a pause read in an older format is upgraded).
    pub format_version: u32,
    /// Set when the agent can record that the pause was resumed (it has a checkpointer or a
    /// store): a second resume of the same id is refused.
    pub id: Option<String>,
    /// The run before the paused request.
    pub snapshot: RunSnapshot<S>,
    /// The paused answer, without its tool calls (they are in [`calls`](Pause::calls)).
    pub answer: PausedAnswer,
    /// The answer's calls, in the model's order: the only copy.
    pub calls: Vec<PendingCall>,
    /// The HMAC-SHA256 seal, as lowercase hex, when the agent has a
    /// [`PauseKey`](super::PauseKey) (which documents what it covers).
    pub seal: Option<String>,
}

/// The model's answer whose calls wait for review.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct PausedAnswer {
    /// The request's number in the run (1-based).
    pub turn: u32,
    /// The answer, with its usage; its `message.tool_calls` is empty (the calls are in
    /// [`Pause::calls`]).
    pub response: ChatResponse,
}

/// One call of the paused answer.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingCall {
    /// The call as the model wrote it: what runs when it is approved.
    pub call: ToolCall,
    /// What the reviewer is asked, when the call is under review; `None` for calls that run
    /// without review. Serialized without its `call_id` and `tool` (they are the call's).
    pub review: Option<ReviewRequest>,
    /// The question the call stopped at: it runs again, from its start, with the answer
    /// ([`Decision::Answer`](super::Decision::Answer)) when the run is resumed.
    pub question: Option<Question>,
    /// The call's result, when it ran before the run paused (beside a call that asked): it
    /// does not run again; the model reads this result.
    pub result: Option<ToolResultMessage>,
}

/// A call that stopped at a question, as [`Pause::questions`] lists it.
#[derive(Clone, Copy, Debug)]
pub struct PendingQuestion<'a> {
    /// The call.
    pub call: &'a ToolCall,
    /// What it asked.
    pub question: &'a Question,
}

impl PendingQuestion<'_> {
    /// The call's id: the key of its answer.
    pub fn call_id(&self) -> &str {
        &self.call.id
    }

    /// Whether the caller runs this call (an external tool) rather than a person answering a
    /// tool's question.
    pub fn is_external(&self) -> bool {
        self.question.kind == QuestionKind::External
    }

    /// The question as JSON (`null` for an external tool: see
    /// [`arguments`](PendingQuestion::arguments)).
    pub fn question(&self) -> &Value {
        &self.question.question
    }

    /// The call's arguments as JSON (`null` when they are not valid JSON): for an external
    /// tool, what the caller runs it with.
    pub fn arguments(&self) -> Value {
        serde_json::from_str(self.call.arguments.trim()).unwrap_or(Value::Null)
    }

    /// The call's arguments as tool `T`'s typed arguments (for a `#[tool(external)]` tool:
    /// its parameters).
    pub fn arguments_as<T: Tool>(&self) -> Result<T::Args, ToolCallError> {
        parse_arguments::<T::Args>(T::NAME, &self.call.arguments, T::definition().strict)
    }

    /// The question as type `Q` (the tool's `Interrupt<Q, _>` question type).
    pub fn question_as<Q: DeserializeOwned>(&self) -> Result<Q, serde_json::Error> {
        Q::deserialize(&self.question.question)
    }

    /// The answer to give `resume` for this call: `answer` serialized (checked against the
    /// tool's answer type when the run is resumed).
    pub fn answer<A: Serialize>(&self, answer: A) -> Result<(String, Decision), serde_json::Error> {
        Ok((self.call.id.clone(), Decision::answer(answer)?))
    }
}

impl PendingCall {
    /// The arguments parsed as JSON (`null` when they are not valid JSON: the model will be
    /// told when the call runs).
    pub fn arguments(&self) -> Value {
        serde_json::from_str(self.call.arguments.trim()).unwrap_or(Value::Null)
    }

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

    /// The calls that stopped at a question (an [`Interrupt`](crate::Interrupt) ask or an
    /// external tool), in the model's call order: each needs a
    /// [`Decision::Answer`](super::Decision::Answer) to resume.
    ///
    /// ```
    /// # fn show(pause: &agentry::agent::Pause<()>) -> Result<(), serde_json::Error> {
    /// for pending in pause.questions() {
    ///     let question: String = pending.question_as()?;
    ///     let (call_id, decision) = pending.answer(question.len() > 3)?;
    ///     # let _ = (call_id, decision);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn questions(&self) -> impl Iterator<Item = PendingQuestion<'_>> {
        self.calls.iter().filter_map(|c| {
            c.question.as_ref().map(|question| PendingQuestion {
                call: &c.call,
                question,
            })
        })
    }

    /// The calls of external tools the caller runs: [`questions`](Pause::questions) whose
    /// question is the call's arguments and whose answer is the tool's result.
    pub fn external_calls(&self) -> impl Iterator<Item = PendingQuestion<'_>> {
        self.questions().filter(|q| q.is_external())
    }

    /// The typed state at the pause.
    pub fn state(&self) -> &S {
        &self.snapshot.state
    }

    /// The paused answer with its calls put back: what the run goes on with.
    pub(crate) fn full_answer(&self) -> ChatResponse {
        let mut response = self.answer.response.clone();
        response.message.tool_calls = self.calls.iter().map(|c| c.call.clone()).collect();
        response
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

/// Builds the pending calls of a paused answer, taking the calls out of `response`. Its list
/// keeps its room, so a resume in the same process puts the calls back without allocating.
pub(crate) fn pending_calls(
    response: &mut ChatResponse,
    reviews: Vec<ReviewRequest>,
) -> Vec<PendingCall> {
    let mut reviews: Vec<Option<ReviewRequest>> = reviews.into_iter().map(Some).collect();
    response
        .message
        .tool_calls
        .drain(..)
        .map(|call| {
            let review = reviews
                .iter_mut()
                .find(|r| r.as_ref().is_some_and(|r| r.call_id == call.id))
                .and_then(Option::take);
            PendingCall {
                call,
                review,
                question: None,
                result: None,
            }
        })
        .collect()
}
