//! [`RunCore`]: one run's state, and the synchronous phases the driver calls between its
//! awaits.
//!
//! The split follows quinn's connection under its driver: everything a run carries from one
//! phase to the next lives in this struct; each method does one phase without I/O and asks
//! the [`Machine`] for every decision; [`driver`](super::driver) only awaits what a phase
//! hands it (a model call, a tool group, a checkpoint, a middleware hook).
//!
//! A turn, in reading order: [`next_turn`](RunCore::next_turn) (may the run ask again?),
//! [`request`](RunCore::request) (the model request), [`answered`](RunCore::answered) (what
//! the answer means), [`plan`](RunCore::plan) (which tool runs each call), then for each
//! group of calls [`tool_runtime`](RunCore::tool_runtime) and `group_done` (in
//! [`group_done`](super::group_done)).

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::builder::Agent;
use super::call::{Planned, plan};
use super::driver::Sinks;
use super::history;
use super::hooks;
use super::instructions::Instructions;
use super::interrupted::{AnswerMark, Asked};
use super::machine::{AfterResponse, Machine, Next, Stop};
use super::one_or_many::OneOrMany;
use super::record::Record;
use super::resume::{Replay, Start};
use super::toolset::Toolset;
use crate::guard::input::{InputCheck, Stopped};
use crate::message::{Message, ToolCall};
use crate::middleware::chain::HookKind;
use crate::model::{ChatRequest, ChatResponse};
use crate::output::OutputSpec;
use crate::run::{AgentEvent, Limit, RequestUsage, RunError, RunErrorKind, RunScope, StopReason};
use crate::tool::runtime::AnswerBook;
use crate::tool::{StateUpdates, ToolCallError, ToolOutput, ToolRuntime};
use crate::usage::Usage;

/// One call's result and the state updates it queued.
pub(super) type CallResult<S> = (Result<ToolOutput, ToolCallError>, StateUpdates<S>);

/// The request a turn makes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Turn {
    /// The request's number in the run (1-based).
    pub(super) number: u32,
    /// Whether the tools are offered (not on the last request at a limit).
    pub(super) with_tools: bool,
}

/// What an answer means for the loop.
pub(super) enum Answered<T> {
    /// The run ends with this output.
    Finish(T, StopReason),
    /// The answer was corrected: ask again.
    Again,
    /// Run these calls (the answer's, in the model's order).
    RunTools(OneOrMany<ToolCall>),
}

/// One run's state between the driver's awaits.
pub(super) struct RunCore<'a, T: Toolset<C, S>, O: OutputSpec, C, S> {
    pub(super) agent: &'a Agent<T, O, C, S>,
    pub(super) context: Arc<C>,
    pub(super) state: Arc<S>,
    pub(super) machine: Machine,
    pub(super) record: Record,
    /// A resumed pause or a recovered crash: the answer to use instead of asking the model.
    replay: Option<Box<Replay>>,
    /// Calls answered before they run (by a reviewer, or by a crash's recovery).
    decided: Vec<(String, Result<ToolOutput, ToolCallError>)>,
    /// Tool messages saved before a crash, put back as they were written.
    pub(super) verbatim: Vec<Message>,
    pub(super) sinks: Option<Sinks<O::Output, S, T::Event>>,
    /// When the run started and its time limit, for a run with one.
    started: Option<(Instant, Duration)>,
    pub(super) deadline: Option<Instant>,
    /// Whether the transcript starts with the agent's instructions.
    has_system: bool,
    /// The run just before the current answer (for a pause at its calls' questions).
    pub(super) mark: Option<AnswerMark>,
    /// The current answer's calls that stopped at a question.
    pub(super) asked: Asked,
    /// Answers to the questions of the replayed answer's calls, by call id.
    answers: Option<Arc<AnswerBook>>,
    /// Whether the run starts from a new input (which the input guardrails check), not from a
    /// snapshot.
    fresh: bool,
}

impl<'a, T, O, C, S> RunCore<'a, T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    /// The run's state at its start: a fresh input (its pending calls answered, the
    /// instructions rendered first), or a snapshot to go on from.
    #[inline(always)]
    pub(super) fn begin(
        agent: &'a Agent<T, O, C, S>,
        start: Start<S>,
        context: Arc<C>,
        sinks: Option<Sinks<O::Output, S, T::Event>>,
    ) -> Self {
        let parts = &agent.parts;
        // The clock is read only for a run with a time limit.
        let started = parts
            .policy
            .limits
            .max_execution_time
            .map(|limit| (Instant::now(), limit));
        let hooks::Begin {
            machine,
            state,
            mut record,
            replay,
            input,
        } = hooks::start(agent, start);
        let fresh = input.is_some();
        let has_system = match input {
            // A resumed run: its transcript already has the instructions.
            None => !matches!(parts.instructions, Instructions::None),
            Some(input) => {
                record.messages = input.into_messages();
                // A history whose last answer has calls without results (written by hand, or
                // saved before they ran) would be rejected by the provider: answer them first.
                let repaired = history::answer_pending(
                    &mut record.messages,
                    "Not run: the conversation went on without this call.",
                    true,
                );
                if repaired > 0 {
                    tracing::debug!(
                        repaired,
                        "answered tool calls left pending in the given history"
                    );
                }
                match parts.instructions.render(&context, &state) {
                    Some(text) => {
                        match record.messages.first_mut() {
                            Some(Message::System { content }) => *content = text,
                            _ => record.messages.insert(0, Message::system(text)),
                        }
                        true
                    }
                    None => false,
                }
            }
        };
        RunCore {
            agent,
            context,
            state,
            machine,
            record,
            replay,
            decided: Vec::new(),
            verbatim: Vec::new(),
            sinks,
            started,
            deadline: started.map(|(at, limit)| at + limit),
            has_system,
            mark: None,
            asked: Vec::new(),
            answers: None,
            fresh,
        }
    }

    /// Sends an event to a streamed run's stream.
    pub(super) fn emit(&self, event: AgentEvent<O::Output, S, T::Event>) {
        if let Some(sinks) = &self.sinks {
            // A dropped receiver means the stream was dropped, which also drops the run.
            let _ = sinks.events.send(event);
        }
    }

    /// Whether the run has middleware (whose hooks the driver awaits).
    pub(super) fn has_middleware(&self) -> bool {
        !self.agent.parts.middleware.is_empty()
    }

    /// Whether some middleware may run `hook`: the driver skips the hook's step otherwise.
    pub(super) fn runs(&self, hook: HookKind) -> bool {
        self.agent.parts.middleware.runs(hook)
    }

    /// Whether the run ends with its output as it is: no `after_agent` hook and no output
    /// guardrail to await (then its end is not a future of its own).
    pub(super) fn ends_plainly(&self) -> bool {
        !self.runs(HookKind::AfterAgent) && !self.agent.parts.guards.has_output()
    }

    /// Whether the run goes on from a known answer (no `before_agent` hooks then).
    pub(super) fn is_replaying(&self) -> bool {
        self.replay.is_some()
    }

    /// Whether the next request may be made: the turn, or the limit that ends the run. At a
    /// limit with the final-answer policy, the request asking for it is prepared.
    #[inline(always)]
    pub(super) fn next_turn(&mut self) -> Result<Turn, Limit> {
        self.answers = None;
        let elapsed = self.started.map_or(Duration::ZERO, |(at, _)| at.elapsed());
        let turn = match self.machine.before_request(elapsed) {
            Next::Request { turn } => Turn {
                number: turn,
                with_tools: true,
            },
            Next::FinalRequest { turn, prompt, .. } => {
                self.record.messages.push(Message::user(prompt));
                Turn {
                    number: turn,
                    with_tools: false,
                }
            }
            Next::Stop(Stop::Limit(limit)) => return Err(limit),
        };
        let parts = &self.agent.parts;
        if self.has_system
            && turn.number > 1
            && parts.instructions.is_dynamic()
            && let (Some(text), Some(Message::System { content })) = (
                parts.instructions.render(&self.context, &self.state),
                self.record.messages.first_mut(),
            )
        {
            *content = text;
        }
        Ok(turn)
    }

    /// The request of a turn without middleware.
    pub(super) fn request(&self, turn: Turn) -> ChatRequest {
        super::model_call::build_request(self.agent, &self.record.messages, turn.with_tools)
    }

    /// The replayed answer, if the run goes on from one, and whether its request would have
    /// sent a closed output schema. The calls it decided are kept for [`plan`](Self::plan).
    pub(super) fn take_replay(&mut self, turn: Turn) -> Option<(ChatResponse, bool)> {
        let replay = *self.replay.take()?;
        self.emit(AgentEvent::TurnStart { turn: turn.number });
        self.decided = replay.decided;
        self.verbatim = replay.verbatim;
        self.answers = (!replay.answers.is_empty()).then(|| Arc::new(replay.answers));
        let closed = self.agent.parts.output.sent_closed(&self.request(turn));
        Some((replay.answer, closed))
    }

    /// Takes in the model's answer: counts its usage and cost, reports it, and asks the
    /// machine what it means. `closed`: whether its request sent a closed output schema.
    #[inline(always)]
    pub(super) fn answered(
        &mut self,
        turn: Turn,
        response: ChatResponse,
        closed: bool,
    ) -> Result<Answered<O::Output>, RunErrorKind> {
        let parts = &self.agent.parts;
        self.mark = Some(AnswerMark {
            counters: self.machine.counters(),
            usage_at: self.record.request_usage.len(),
            steps_at: self.record.steps.len(),
        });
        let ChatResponse {
            message,
            usage,
            model,
            ..
        } = response;
        self.record.usage += usage;
        if let Some(prices) = &parts.prices {
            let cost = crate::cost::charge(prices, &model, parts.model.model_name(), &usage)
                .map_err(RunErrorKind::Cost)?;
            self.machine.add_cost(cost);
        }
        self.record.request_usage.push(RequestUsage {
            model,
            usage,
            agent: None,
        });
        let turn = turn.number;
        self.emit(AgentEvent::Usage { turn, usage });
        if self.sinks.is_some() {
            self.emit(AgentEvent::Response {
                turn,
                message: Box::new(message.clone()),
            });
        }
        let parse = crate::protocol::parse_answer(&parts.output, &message, closed);
        // Copied for the steps; a round of one call copies no list.
        let calls = OneOrMany::new(message.tool_calls.iter().cloned());
        self.record.messages.push(Message::Assistant(message));
        match self.machine.after_response(usage, parse) {
            AfterResponse::Finish {
                output,
                stop_reason,
            } => {
                // A final answer that also called tools (e.g. an output tool beside ordinary
                // ones) leaves calls unanswered; answer them so the history stays valid.
                let unanswered: Vec<ToolCall> = calls
                    .into_iter()
                    .filter(|c| !parts.output.is_output_tool(&c.name))
                    .collect();
                self.record
                    .skip(&unanswered, "the run ended with the final answer");
                Ok(Answered::Finish(output, stop_reason))
            }
            AfterResponse::Fail(kind) => Err(kind),
            AfterResponse::Correct(feedback) => {
                self.record.messages.extend(feedback);
                Ok(Answered::Again)
            }
            AfterResponse::RunTools => Ok(Answered::RunTools(calls)),
        }
    }

    /// Which tool runs each call (or the decision already made for it).
    pub(super) fn plan(&mut self, calls: &[ToolCall]) -> OneOrMany<Planned<'a, T::Call, C, S>> {
        let agent = self.agent;
        let decided = &mut self.decided;
        OneOrMany::new(
            calls
                .iter()
                .map(|call| hooks::decided(decided, call).unwrap_or_else(|| plan(agent, call))),
        )
    }

    /// The scope sub-agents of the next group inherit, and the runtime its tools get.
    #[inline(always)]
    pub(super) fn tool_runtime(&self) -> (Arc<RunScope>, ToolRuntime<C, S>) {
        let parts = &self.agent.parts;
        let scope = super::batch_scope::batch_scope(
            self.agent,
            self.deadline,
            self.machine.usage(),
            self.sinks.as_ref().map(|s| &s.events),
        );
        let rt = ToolRuntime::from_parts(Arc::clone(&self.context), Arc::clone(&self.state))
            .with_scope(Arc::clone(&scope))
            .with_answer_book(self.answers.clone())
            .with_forwarded(parts.forwarded.clone());
        let rt = match &parts.store {
            Some(store) => rt.with_store(store.clone()),
            None => rt,
        };
        let rt = match &self.sinks {
            Some(sinks) => rt.with_custom_sink(sinks.events.custom_sink()),
            None => rt,
        };
        (scope, rt)
    }

    /// Whether calls of the current answer stopped at a question (the run pauses after them).
    pub(super) fn has_questions(&self) -> bool {
        !self.asked.is_empty()
    }

    /// The check of a fresh run's user message by the input guardrails, to race against its
    /// first request; `None` when there is nothing to check.
    pub(super) fn input_check(&self) -> Option<InputCheck<'a>> {
        if !self.fresh {
            return None;
        }
        crate::guard::input::check(
            &self.agent.parts.guards.input,
            &self.record.messages,
            Arc::clone(&self.context),
        )
    }

    /// The input guardrails stopped the first request: it is counted (with its answer's usage
    /// when it had finished, else with what its stream reported before it was cancelled; see
    /// `guard/billed.rs`), and the run ends (a block) or makes the request again with the
    /// rewritten message (`Ok`).
    pub(super) fn input_stopped(
        &mut self,
        turn: Turn,
        verdict: Stopped,
        answered: Option<&ChatResponse>,
    ) -> Result<(), RunErrorKind> {
        let (model, usage) = match answered {
            Some(response) => (response.model.clone(), response.usage),
            None => (
                self.agent.parts.model.model_name().to_string(),
                match &self.sinks {
                    Some(sinks) => sinks.reported.cancelled(),
                    None => Usage {
                        requests: 1,
                        ..Usage::default()
                    },
                },
            ),
        };
        self.record.usage += usage;
        self.machine.add_usage(usage);
        self.record.request_usage.push(RequestUsage {
            model,
            usage,
            agent: None,
        });
        self.emit(AgentEvent::Usage {
            turn: turn.number,
            usage,
        });
        match verdict {
            Stopped::Block { name, reason } => {
                tracing::debug!(guardrail = %name, %reason, cancelled = answered.is_none(), "input blocked by a guardrail");
                Err(RunErrorKind::Guardrail { name, reason })
            }
            Stopped::Rewrite(text) => {
                tracing::debug!(
                    cancelled = answered.is_none(),
                    "input rewritten by a guardrail; asking again"
                );
                crate::guard::input::rewrite_last_user(&mut self.record.messages, text);
                Ok(())
            }
        }
    }

    /// The run's error, with the run so far.
    pub(super) fn fail(self, kind: RunErrorKind) -> RunError {
        self.record.fail(kind)
    }
}
