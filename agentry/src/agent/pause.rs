//! Human in the loop: a run that stops before its tool calls run ([`Pause`]) and goes on
//! later, possibly in another process ([`Agent::resume`]).

use std::collections::HashMap;
use std::sync::Arc;

use futures::FutureExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::builder::Agent;
use super::driver::{Sinks, drive};
use super::dyn_tool::json_arguments;
use super::error::{PartialRun, RunError, RunErrorKind};
use super::input::Input;
use super::result::RunResult;
use super::snapshot::RunSnapshot;
use super::stream::AgentStream;
use super::toolset::Toolset;
use crate::message::ToolCall;
use crate::middleware::{Decision, ReviewRequest};
use crate::model::ChatResponse;
use crate::output::OutputSpec;
use crate::tool::{Tool, ToolCallError, ToolOutput, parse_arguments};

/// The format of a serialized [`Pause`]; [`Agent::resume`] refuses others.
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
/// [`Agent::resume`] in this process or another.
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

/// Why [`Agent::resume`] refused a pause or its decisions.
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
        decision: crate::middleware::DecisionKind,
        /// The decisions allowed.
        allowed: crate::middleware::Allowed,
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

/// Where a run starts: fresh input, or a reviewed pause.
pub(crate) enum Start<S> {
    Fresh {
        input: Input,
        state: S,
    },
    /// A run that goes on from a snapshot: a reviewed pause (with its answer to replay), or
    /// a thread's run recovered after a crash (with or without an answer to replay).
    Resume {
        snapshot: Box<RunSnapshot<S>>,
        /// Boxed: the run's future holds its start for the whole run.
        replay: Option<Box<Replay>>,
    },
}

/// A pause with its decisions applied: what the driver needs to go on.
pub(crate) struct Replay {
    /// The answer to use instead of asking the model (edited calls already edited).
    pub(crate) answer: ChatResponse,
    /// The calls answered by the reviewer, by call id.
    pub(crate) decided: Vec<(String, Result<ToolOutput, ToolCallError>)>,
}

impl<T, O, C, S> Agent<T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    /// Runs like [`Agent::run`], but a run that stops for review (see
    /// [`HumanInTheLoop`](crate::middleware::HumanInTheLoop)) returns
    /// [`Outcome::Interrupted`] instead of an error.
    pub async fn run_or_pause(
        &self,
        input: impl Into<Input>,
        context: impl Into<Arc<C>>,
    ) -> Result<Outcome<O::Output, S>, RunError>
    where
        S: Default,
    {
        self.run_or_pause_with_state(input, context, S::default())
            .await
    }

    /// [`Agent::run_or_pause`] starting from `state`.
    pub async fn run_or_pause_with_state(
        &self,
        input: impl Into<Input>,
        context: impl Into<Arc<C>>,
        state: S,
    ) -> Result<Outcome<O::Output, S>, RunError> {
        let start = Start::Fresh {
            input: input.into(),
            state,
        };
        drive(self, start, context.into(), None).await
    }

    /// Goes on from `pause` with one decision per reviewed call (by call id), without asking
    /// the model again for the paused answer: approved calls run, edited calls run with the
    /// new arguments, rejected calls send the reviewer's message to the model, responded calls
    /// send the reviewer's content as the result, and calls not under review run as usual.
    /// Results keep the model's call order. The run may pause again later.
    ///
    /// A decision that does not fit the pause (a missing or extra decision, one the policy
    /// does not allow, edited arguments that do not parse) is a
    /// [`RunErrorKind::Resume`] error; nothing runs.
    pub async fn resume(
        &self,
        pause: Pause<S>,
        decisions: impl IntoIterator<Item = (String, Decision)>,
        context: impl Into<Arc<C>>,
    ) -> Result<Outcome<O::Output, S>, RunError> {
        let start = self.prepare_resume(pause, decisions)?;
        drive(self, start, context.into(), None).await
    }

    /// [`Agent::resume`], streaming events like [`Agent::stream`].
    pub fn resume_stream(
        &self,
        pause: Pause<S>,
        decisions: impl IntoIterator<Item = (String, Decision)>,
        context: impl Into<Arc<C>>,
    ) -> AgentStream<'_, O::Output, S> {
        let (sinks, events) = Sinks::new();
        let run = match self.prepare_resume(pause, decisions) {
            Ok(start) => drive(self, start, context.into(), Some(sinks)),
            Err(error) => futures::future::ready(Err(error)).boxed(),
        };
        AgentStream::new(run, events)
    }

    pub(super) fn prepare_resume(
        &self,
        pause: Pause<S>,
        decisions: impl IntoIterator<Item = (String, Decision)>,
    ) -> Result<Start<S>, RunError> {
        let fail = |error: ResumeError, pause: &Pause<S>| {
            RunError::new(RunErrorKind::Resume(error), pause.partial())
        };
        if pause.format_version != PAUSE_FORMAT_VERSION {
            let error = ResumeError::Version {
                found: pause.format_version,
                expected: PAUSE_FORMAT_VERSION,
            };
            return Err(fail(error, &pause));
        }
        let mut by_id: HashMap<String, Decision> = HashMap::new();
        for (call_id, decision) in decisions {
            if !pause
                .calls
                .iter()
                .any(|c| c.review.is_some() && c.call.id == call_id)
            {
                return Err(fail(ResumeError::NotUnderReview { call_id }, &pause));
            }
            if by_id.contains_key(&call_id) {
                return Err(fail(ResumeError::DuplicateDecision { call_id }, &pause));
            }
            by_id.insert(call_id, decision);
        }
        let mut response = pause.answer.response.clone();
        let mut decided = Vec::new();
        for pending in &pause.calls {
            let Some(review) = &pending.review else {
                continue;
            };
            let call_id = pending.call.id.clone();
            let Some(decision) = by_id.remove(&call_id) else {
                let tool = pending.call.name.clone();
                return Err(fail(ResumeError::MissingDecision { call_id, tool }, &pause));
            };
            if !review.allowed.contains(decision.kind()) {
                let error = ResumeError::NotAllowed {
                    call_id,
                    tool: pending.call.name.clone(),
                    decision: decision.kind(),
                    allowed: review.allowed,
                };
                return Err(fail(error, &pause));
            }
            match decision {
                Decision::Approve => {}
                Decision::Edit { arguments } => {
                    let edited = ToolCall::new(
                        call_id.clone(),
                        pending.call.name.clone(),
                        arguments.to_string(),
                    );
                    if let Err(error) = self.check_arguments(&edited) {
                        return Err(fail(ResumeError::InvalidEdit { call_id, error }, &pause));
                    }
                    // The transcript shows the call that ran.
                    if let Some(call) = response
                        .message
                        .tool_calls
                        .iter_mut()
                        .find(|c| c.id == call_id)
                    {
                        call.arguments = edited.arguments;
                    }
                }
                Decision::Reject { message } | Decision::Respond { content: message } => {
                    decided.push((call_id, Ok(ToolOutput::text(message))));
                }
            }
        }
        Ok(Start::Resume {
            snapshot: Box::new(pause.snapshot),
            replay: Some(Box::new(Replay {
                answer: response,
                decided,
            })),
        })
    }

    /// Parses `call`'s arguments for the tool it names, as a run would.
    fn check_arguments(&self, call: &ToolCall) -> Result<(), ToolCallError> {
        match self.parts.toolset.parse(call) {
            Some(result) => result.map(drop),
            None => match self
                .parts
                .dyn_tools
                .iter()
                .find(|t| t.definition().name == call.name)
            {
                Some(tool) => json_arguments(&tool.definition(), &call.arguments).map(drop),
                None => Err(ToolCallError::UnknownTool {
                    name: call.name.clone(),
                    available: self.definitions.iter().map(|d| d.name.clone()).collect(),
                }),
            },
        }
    }
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
