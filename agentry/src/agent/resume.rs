//! Going on after a pause: [`Agent::run_or_pause`], [`Agent::resume`] and the checks that a
//! reviewer's decisions fit the [`Pause`].

use futures::FutureExt;
use smallvec::SmallVec;

use super::builder::Agent;
use super::driver::{Sinks, drive};
use super::dyn_tool::json_arguments;
use super::input::Input;
use super::outcome_future::OutcomeFuture;
use super::stream::AgentStream;
use super::thread::saved_result;
use super::toolset::Toolset;
use crate::agent::{IntoContext, IntoInput};
use crate::message::ToolCall;
use crate::middleware::{Decision, DecisionKind, IntoDecision};
use crate::model::ChatResponse;
use crate::output::OutputSpec;
use crate::run::{
    OLDEST_READ_FORMAT, PAUSE_FORMAT_VERSION, Pause, PendingCall, ResumeError, RunError,
    RunErrorKind, RunSnapshot,
};
use crate::tool::runtime::AnswerBook;
use crate::tool::{ToolCallError, ToolOutput};

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
    /// Tool messages of decided calls to put in the transcript as they are (results saved
    /// before a crash, or before a pause at questions); other decided calls get theirs from
    /// the result.
    pub(crate) verbatim: Vec<crate::message::Message>,
    /// The answers to the questions of calls that run again, by call id (each call's
    /// answers in the order it asked).
    pub(crate) answers: AnswerBook,
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
    /// [`Outcome::Paused`](crate::run::Outcome::Paused) instead of an error.
    pub fn run_or_pause(
        &self,
        input: impl IntoInput,
        context: impl IntoContext<C>,
    ) -> OutcomeFuture<'_, O::Output, S>
    where
        S: Default,
    {
        self.run_or_pause_with_state(input, context, S::default())
    }

    /// [`Agent::run_or_pause`] starting from `state`.
    pub fn run_or_pause_with_state(
        &self,
        input: impl IntoInput,
        context: impl IntoContext<C>,
        state: S,
    ) -> OutcomeFuture<'_, O::Output, S> {
        // Not an `async fn`: the run's future is returned as it is, without a second future
        // holding the arguments beside it.
        let start = Start::Fresh {
            input: input.into(),
            state,
        };
        OutcomeFuture::run(drive(self, start, context.into_context(), None))
    }

    /// Goes on from `pause` with one decision per reviewed call (by call id), without asking
    /// the model again for the paused answer: approved calls run, edited calls run with the
    /// new arguments, rejected calls send the reviewer's message to the model, responded calls
    /// send the reviewer's content as the result, and calls not under review run as usual.
    /// Results keep the model's call order. The run may pause again later.
    ///
    /// The pause is checked, not trusted (see [`Pause`] for what it guarantees): which calls
    /// need a decision and which decisions they allow come from this agent's middleware
    /// ([`Middleware::reviews`](crate::middleware::Middleware::reviews)), not from the pause;
    /// with a [`pause_key`](super::AgentBuilder::pause_key) the seal must match; with a
    /// checkpointer, a pause resumes once.
    ///
    /// A pause or decision that does not fit (a missing or extra decision, one the policy
    /// does not allow, edited arguments that do not parse, a reviewed call to a tool the
    /// agent does not have, a missing or wrong seal, a pause resumed already) is a
    /// [`RunErrorKind::Resume`] error; nothing runs.
    ///
    /// The pause and decisions are checked when this is called; the returned future reports
    /// the outcome and runs nothing if they do not fit.
    ///
    /// `pause` is the box [`Outcome::Paused`](crate::run::Outcome::Paused) holds, or a
    /// [`Pause`] read back (from JSON, a queue): either is taken as it is, the box without
    /// copying the pause out of it.
    pub fn resume(
        &self,
        pause: impl Into<Box<Pause<S>>>,
        decisions: impl IntoIterator<Item: IntoDecision>,
        context: impl IntoContext<C>,
    ) -> OutcomeFuture<'_, O::Output, S> {
        // Not an `async fn`, which would keep the pause (≈ 500 bytes) in its future twice:
        // the pause is taken apart here. A pause without an id (nothing records its resume)
        // is the run's own future, as `run`'s is; one with an id is boxed with the write that
        // marks it used, so the caller's future does not hold the run's start beside it.
        let pause = pause.into();
        let id = pause.id.clone();
        let decisions = decisions.into_iter().map(IntoDecision::into_decision);
        let prepared = self.prepare_resume(pause, decisions, true);
        let context = context.into_context();
        match (prepared, id) {
            (Err(error), _) => OutcomeFuture::failed(error),
            (Ok(start), None) => OutcomeFuture::run(drive(self, start, context, None)),
            (Ok(start), Some(id)) => OutcomeFuture::boxed(Box::pin(async move {
                self.consume_pause(Some(&id), &start, None).await?;
                drive(self, start, context, None).await
            })),
        }
    }

    /// [`Agent::resume`], streaming events like [`Agent::stream`].
    pub fn resume_stream(
        &self,
        pause: impl Into<Box<Pause<S>>>,
        decisions: impl IntoIterator<Item: IntoDecision>,
        context: impl IntoContext<C>,
    ) -> AgentStream<'_, O::Output, S, T::Event> {
        let (sinks, events) = Sinks::new();
        let pause = pause.into();
        let id = pause.id.clone();
        let context = context.into_context();
        let decisions = decisions.into_iter().map(IntoDecision::into_decision);
        let run = match self.prepare_resume(pause, decisions, true) {
            Ok(start) => async move {
                self.consume_pause(id.as_deref(), &start, None).await?;
                drive(self, start, context, Some(sinks)).await
            }
            .boxed(),
            Err(error) => futures::future::ready(Err(error)).boxed(),
        };
        AgentStream::new(run, events)
    }

    /// Checks `pause` and `decisions` and builds the run's start. `check_seal`: whether the
    /// pause came from outside (a thread's own pause is read from its checkpointer).
    pub(super) fn prepare_resume(
        &self,
        pause: Box<Pause<S>>,
        decisions: impl IntoIterator<Item = (String, Decision)>,
        check_seal: bool,
    ) -> Result<Start<S>, RunError> {
        let fail = |error: ResumeError, pause: &Pause<S>| {
            RunError::new(RunErrorKind::Resume(error), pause.partial())
        };
        if !(OLDEST_READ_FORMAT..=PAUSE_FORMAT_VERSION).contains(&pause.format_version) {
            let error = ResumeError::Version {
                found: pause.format_version,
                expected: PAUSE_FORMAT_VERSION,
            };
            return Err(fail(error, &pause));
        }
        if check_seal
            && let Some(sealer) = &self.parts.sealer
            && let Err(error) = sealer.verify(&pause)
        {
            return Err(fail(error, &pause));
        }
        // The agent's policy decides what is reviewed (asked per call, without describing
        // it); a review the pause lists beyond it (from a middleware that does not report its
        // policy) is kept.
        let middleware = &self.parts.middleware;
        let allowed_for = |pending: &PendingCall| {
            middleware
                .review_policy(&pending.call)
                .or(pending.review.as_ref().map(|r| r.allowed))
        };
        // A few decisions, one per reviewed call: a list, searched by id (inline for up to
        // two, the common case, which then allocates nothing).
        let mut by_id: SmallVec<[(String, Decision); 2]> = SmallVec::new();
        for (call_id, decision) in decisions {
            let reviewed = pause.calls.iter().any(|c| {
                c.call.id == call_id && (c.question.is_some() || allowed_for(c).is_some())
            });
            if !reviewed {
                return Err(fail(ResumeError::NotUnderReview { call_id }, &pause));
            }
            if by_id.iter().any(|(id, _)| *id == call_id) {
                return Err(fail(ResumeError::DuplicateDecision { call_id }, &pause));
            }
            by_id.push((call_id, decision));
        }
        let mut take_decision = |call_id: &str| {
            let at = by_id.iter().position(|(id, _)| id == call_id)?;
            Some(by_id.swap_remove(at).1)
        };
        let mut decided = Vec::new();
        let mut edits: Vec<(String, String)> = Vec::new();
        let mut verbatim = Vec::new();
        let mut answers = Vec::new();
        for pending in &pause.calls {
            // Copied only into what is kept: an error, a decided result, an edit.
            let (call_id, tool) = (&pending.call.id, &pending.call.name);
            let owned = || (call_id.clone(), tool.clone());
            if let Some(result) = &pending.result {
                // Ran before the pause: its saved result stands.
                decided.push((call_id.clone(), saved_result(&pending.call, result)));
                verbatim.push(crate::message::Message::Tool(result.clone()));
                continue;
            }
            if let Some(question) = &pending.question {
                if !self.definitions.iter().any(|d| d.name == *tool) {
                    let (call_id, tool) = owned();
                    return Err(fail(ResumeError::UnknownTool { call_id, tool }, &pause));
                }
                let answer = match take_decision(call_id) {
                    Some(Decision::Answer { answer }) => answer,
                    Some(other) => {
                        let (call_id, tool) = owned();
                        let error = ResumeError::NotAllowed {
                            call_id,
                            tool,
                            decision: other.kind(),
                            allowed: DecisionKind::Answer.into(),
                        };
                        return Err(fail(error, &pause));
                    }
                    None => {
                        let (call_id, tool) = owned();
                        return Err(fail(ResumeError::MissingDecision { call_id, tool }, &pause));
                    }
                };
                if let Err(error) = self.check_answer(&pending.call, &answer) {
                    let (call_id, tool) = owned();
                    let error = ResumeError::InvalidAnswer {
                        call_id,
                        tool,
                        error,
                    };
                    return Err(fail(error, &pause));
                }
                let mut given = question.answered.clone();
                given.push(answer);
                answers.push((call_id.clone(), given));
                continue;
            }
            let Some(allowed) = allowed_for(pending) else {
                continue;
            };
            if !self.definitions.iter().any(|d| d.name == *tool) {
                let (call_id, tool) = owned();
                return Err(fail(ResumeError::UnknownTool { call_id, tool }, &pause));
            }
            let Some(decision) = take_decision(call_id) else {
                let (call_id, tool) = owned();
                return Err(fail(ResumeError::MissingDecision { call_id, tool }, &pause));
            };
            if !allowed.contains(decision.kind()) || decision.kind() == DecisionKind::Answer {
                let (call_id, tool) = owned();
                let error = ResumeError::NotAllowed {
                    call_id,
                    tool,
                    decision: decision.kind(),
                    allowed,
                };
                return Err(fail(error, &pause));
            }
            match decision {
                Decision::Approve | Decision::Answer { .. } => {}
                Decision::Edit { arguments } => {
                    let (call_id, tool) = owned();
                    let edited = ToolCall::new(call_id.clone(), tool, arguments.to_string());
                    if let Err(error) = self.check_arguments(&edited) {
                        return Err(fail(ResumeError::InvalidEdit { call_id, error }, &pause));
                    }
                    // The transcript shows the call that ran.
                    edits.push((call_id, edited.arguments));
                }
                Decision::Reject { message } | Decision::Respond { content: message } => {
                    decided.push((call_id.clone(), Ok(ToolOutput::text(message))));
                }
            }
        }
        // The paused answer with its calls put back (edited ones as edited).
        let Pause {
            answer,
            snapshot,
            calls,
            ..
        } = *pause;
        let mut answer = answer.response;
        // Into the answer's own list, emptied first (a pause read from outside may list calls
        // there too; only `calls` run). A pause made in this process kept the list's room
        // when its calls were taken out, so this allocates nothing; collected in place
        // instead, the pending calls' larger list would be shrunk by a `realloc`.
        answer.message.tool_calls.clear();
        answer
            .message
            .tool_calls
            .extend(calls.into_iter().map(|c| c.call));
        for (call_id, arguments) in edits {
            if let Some(call) = answer
                .message
                .tool_calls
                .iter_mut()
                .find(|c| c.id == call_id)
            {
                call.arguments = arguments;
            }
        }
        Ok(Start::Resume {
            snapshot: Box::new(snapshot),
            replay: Some(Box::new(Replay {
                answer,
                decided,
                verbatim,
                answers,
            })),
        })
    }

    /// Checks `answer` against the answer type of the question `call`'s tool asks (its
    /// `Interrupt`'s answer, or an external tool's result).
    fn check_answer(&self, call: &ToolCall, answer: &serde_json::Value) -> Result<(), String> {
        let parts = &self.parts;
        match parts.toolset.parse(call) {
            Some(Ok(parsed)) => parts.toolset.check_answer(&parsed, answer),
            Some(Err(error)) => Err(error.to_string()),
            None => match parts
                .dyn_tools
                .iter()
                .find(|t| t.definition().name == call.name)
            {
                Some(tool) => tool.check_answer(answer),
                None => Err(format!("this agent has no tool `{}`", call.name)),
            },
        }
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
