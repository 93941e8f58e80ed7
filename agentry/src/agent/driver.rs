//! The async driver: does the I/O the [`Machine`](super::machine::Machine) decides on.
//!
//! Nothing is spawned: model calls and tool calls are futures polled by the run's own future
//! (tool calls of one batch through `buffered`), so dropping the run cancels all of them.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures::future::Either;
use futures::{FutureExt, StreamExt};
use tokio::time::Instant;

use super::builder::Agent;
use super::call::{Planned, group_len, plan, run_call, tool_message};
use super::event_queue::{EventReceiver, EventSender, event_queue};
use super::finish::{finish, finish_plain};
use super::history;
use super::hooks;
use super::instructions::Instructions;
use super::machine::{AfterResponse, AfterTools, CallOutcome, Next, Stop};
use super::model_call::{Forward, build_request, call_model};
use super::model_turn;
use super::one_or_many::OneOrMany;
use super::output_tap::OutputTap;
use super::resume::Start;
use super::thread::{Journal, SavePoint};
use super::toolset::Toolset;
use crate::message::{AssistantMessage, Message, ToolCall};
use crate::model::ChatResponse;
use crate::output::{OutputParse, OutputSpec};
use crate::run::AgentEvent;
use crate::run::Limit;
use crate::run::Outcome;
use crate::run::{RequestUsage, Step, StopReason};
use crate::run::{RunError, RunErrorKind};
use crate::telemetry;
use crate::tool::ToolRuntime;

/// Where a streamed run sends its events (tools' custom events included).
pub(crate) struct Sinks<T, S> {
    pub(crate) events: EventSender<T, S>,
}

impl<T, S> Sinks<T, S> {
    /// The sinks of a new streamed run, and the stream's end of its queue.
    pub(crate) fn new() -> (Sinks<T, S>, EventReceiver<T, S>) {
        let (events, receiver) = event_queue();
        (Sinks { events }, receiver)
    }
}

/// How a run ended: finished or paused, or its error.
pub(crate) type RunEnd<T, S> = Result<Outcome<T, S>, RunError>;

/// Runs the loop to its end, under the run's `invoke_agent` span.
///
/// The run's future is boxed here, once: it is over a kilobyte, and unboxed it would be copied
/// whole each time a caller moves the future holding it (into a task, into `join_all`, into
/// another `async` block).
pub(crate) fn drive<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    start: Start<S>,
    context: Arc<C>,
    sinks: Option<Sinks<O::Output, S>>,
) -> Pin<Box<impl Future<Output = RunEnd<O::Output, S>>>>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    drive_saving(agent, start, context, sinks, None)
}

/// Runs the loop to its end under the run's `invoke_agent` span, saving checkpoints to
/// `journal` (a run in a thread).
pub(crate) fn drive_saving<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    start: Start<S>,
    context: Arc<C>,
    sinks: Option<Sinks<O::Output, S>>,
    journal: Option<&mut (dyn Journal<S> + Send)>,
) -> Pin<Box<impl Future<Output = RunEnd<O::Output, S>>>>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    Box::pin(telemetry::spans::trace_run(
        agent.parts.name.as_deref(),
        &*agent.parts.model,
        drive_loop(agent, start, context, sinks, journal),
    ))
}

/// The loop.
async fn drive_loop<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    start: Start<S>,
    context: Arc<C>,
    sinks: Option<Sinks<O::Output, S>>,
    mut journal: Option<&mut (dyn Journal<S> + Send)>,
) -> Result<Outcome<O::Output, S>, RunError>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    let parts = &agent.parts;
    // The clock is read only for a run with a time limit.
    let started = parts
        .policy
        .limits
        .max_execution_time
        .map(|limit| (Instant::now(), limit));
    let deadline = started.map(|(at, limit)| at + limit);
    let hooks::Begin {
        mut machine,
        mut state,
        mut record,
        mut replay,
        input,
    } = hooks::start(agent, start);
    let has_system = match input {
        // A resumed run: its transcript already has the instructions.
        None => !matches!(parts.instructions, Instructions::None),
        Some(input) => {
            record.messages = input.into_messages().into();
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
    let emit = |event: AgentEvent<O::Output, S>| {
        if let Some(sinks) = &sinks {
            // A dropped receiver means the stream was dropped, which also drops this future.
            let _ = sinks.events.send(event);
        }
    };
    if let Some(j) = journal.as_deref_mut()
        && let Err(kind) = j.save(SavePoint::Started, &record, &state, &machine).await
    {
        return Err(record.fail(kind));
    }
    let mut decided = Vec::new();
    if replay.is_none() && !parts.middleware.is_empty() {
        match Box::pin(hooks::before_agent(
            agent,
            &mut record,
            &context,
            &mut state,
        ))
        .await
        {
            Ok(None) => {}
            Ok(Some(end)) => {
                return Box::pin(hooks::end_with(agent, record, &context, state, end)).await;
            }
            Err(kind) => return Err(record.fail(kind)),
        }
    }

    loop {
        let elapsed = started.map_or(Duration::ZERO, |(at, _)| at.elapsed());
        let (turn, with_tools) = match machine.before_request(elapsed) {
            Next::Request { turn } => (turn, true),
            Next::FinalRequest { turn, prompt, .. } => {
                record.messages.push(Message::user(prompt));
                (turn, false)
            }
            Next::Stop(Stop::Limit(limit)) => {
                return Err(record.fail(RunErrorKind::LimitExceeded(limit)));
            }
        };
        if has_system
            && turn > 1
            && parts.instructions.is_dynamic()
            && let (Some(text), Some(Message::System { content })) = (
                parts.instructions.render(&context, &state),
                record.messages.first_mut(),
            )
        {
            *content = text;
        }
        // The answer, taken apart inside a block: what it held (and the request) is not kept
        // in the run's future across the tool calls' awaits.
        let mut calls = {
            let (calls, after) = {
                let (answer, closed) = if let Some(replayed) = replay.take() {
                    // A resumed pause: the answer is already known.
                    emit(AgentEvent::TurnStart { turn });
                    decided = replayed.decided;
                    let request = build_request(agent, &record.messages, with_tools);
                    (
                        Some(Ok(replayed.answer)),
                        parts.output.sent_closed(&request),
                    )
                } else if parts.middleware.is_empty() {
                    let is_output_tool = |name: &str| parts.output.is_output_tool(name);
                    let closed;
                    // The request is moved into the call inside this block, so it is not kept beside
                    // the call's future while it is awaited.
                    let answer = {
                        let request = build_request(agent, &record.messages, with_tools);
                        closed = parts.output.sent_closed(&request);
                        tracing::debug!(turn, messages = request.messages.len(), "model request");
                        emit(AgentEvent::TurnStart { turn });
                        let forward = sinks.as_ref().map(|s| Forward {
                            events: &s.events,
                            turn,
                            tap: OutputTap::new(&parts.output, &request),
                            is_output_tool: &is_output_tool,
                        });
                        within(deadline, call_model(&*parts.model, request, forward))
                    }
                    .await;
                    (answer, closed)
                } else {
                    // Boxed: a turn through middleware holds much more across its awaits than a plain
                    // one, and the run's future would carry that room (and its copies) without it.
                    let turned = Box::pin(model_turn::middleware_turn(
                        agent,
                        &mut record,
                        &context,
                        &mut state,
                        &mut machine,
                        turn,
                        with_tools,
                        deadline,
                        sinks.as_ref().map(|s| &s.events),
                    ))
                    .await;
                    match turned {
                        Ok(model_turn::MiddlewareTurn::Answer(response, closed)) => {
                            (Some(Ok(response)), closed)
                        }
                        Ok(model_turn::MiddlewareTurn::Again) => continue,
                        Ok(model_turn::MiddlewareTurn::End(end)) => {
                            return Box::pin(hooks::end_with(agent, record, &context, state, end))
                                .await;
                        }
                        Ok(model_turn::MiddlewareTurn::Pause(response, reviews)) => {
                            let paused = hooks::pause(
                                agent, record, state, &machine, turn, response, reviews,
                            );
                            return Box::pin(agent.register_pause(paused)).await;
                        }
                        Err(kind) => return Err(record.fail(kind)),
                    }
                };
                let response = match answer {
                    Some(Ok(response)) => response,
                    Some(Err(error)) => return Err(record.fail(RunErrorKind::Model(error))),
                    None => return Err(record.fail(time_limit(agent))),
                };
                let ChatResponse {
                    message,
                    usage,
                    model,
                    ..
                } = response;
                record.usage += usage;
                if let Some(prices) = &parts.prices {
                    match crate::cost::charge(prices, &model, parts.model.model_name(), &usage) {
                        Ok(cost) => machine.add_cost(cost),
                        Err(e) => return Err(record.fail(RunErrorKind::Cost(e))),
                    }
                }
                record.request_usage.push(RequestUsage {
                    model,
                    usage,
                    agent: None,
                });
                emit(AgentEvent::Usage { turn, usage });
                if sinks.is_some() {
                    emit(AgentEvent::Response {
                        turn,
                        message: Box::new(message.clone()),
                    });
                }
                let parse = crate::protocol::parse_answer(&parts.output, &message, closed);
                // Copied for the steps; a round of one call copies no list.
                let calls = OneOrMany::new(message.tool_calls.iter().cloned());
                record.messages.push(Message::Assistant(message));
                (calls, machine.after_response(usage, parse))
            };

            match after {
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
                    record.skip(&unanswered, "the run ended with the final answer");
                    if parts.middleware.is_empty() {
                        return finish_plain(record, state, output, stop_reason);
                    }
                    return Box::pin(finish(agent, &context, record, state, output, stop_reason))
                        .await;
                }
                AfterResponse::Fail(kind) => return Err(record.fail(kind)),
                AfterResponse::Correct(feedback) => {
                    record.messages.extend(feedback);
                    continue;
                }
                AfterResponse::RunTools => {
                    if let Some(j) = journal.as_deref_mut()
                        && let Err(kind) =
                            j.save(SavePoint::Answered, &record, &state, &machine).await
                    {
                        return Err(record.fail(kind));
                    }
                }
            }
            calls
        };

        // Plan every call, then run them in groups: consecutive concurrent calls together,
        // each sequential call alone.
        let mut planned: OneOrMany<Planned<'_, T::Call, C, S>> =
            OneOrMany::new(calls.as_slice().iter().map(|call| {
                hooks::decided(&mut decided, call).unwrap_or_else(|| plan(agent, call))
            }));
        let mut start = 0;
        while !planned.as_slice().is_empty() {
            let range = start..start + group_len(planned.as_slice());
            start = range.end;
            let group_calls = &calls.as_slice()[range.clone()];

            // What sub-agents run by this batch inherit (model, budget, usage and event sinks).
            let scope = super::batch_scope::batch_scope(
                agent,
                deadline,
                machine.usage(),
                sinks.as_ref().map(|s| &s.events),
            );
            let base = {
                let rt = ToolRuntime::from_parts(Arc::clone(&context), Arc::clone(&state))
                    .with_scope(Arc::clone(&scope));
                let rt = match &parts.store {
                    Some(store) => rt.with_store(store.clone()),
                    None => rt,
                };
                match &sinks {
                    Some(sinks) => rt.with_custom_sink(sinks.events.custom_sink()),
                    None => rt,
                }
            };
            // Whether each call's tool is `return_direct`; one call (the common case) needs no
            // list, and is awaited as it is, without a buffered stream.
            let mut flags = Vec::new();
            let mut one_flag = false;
            let results = if range.len() == 1 {
                // Held inline, not boxed: the run's future is boxed once (`drive`) and never
                // moved, so the room the call takes in it is cheaper than an allocation per call.
                let run = {
                    let Some(p) = planned.next() else { break };
                    one_flag = p.return_direct;
                    run_call(agent, &base, &group_calls[0], p.dispatch, p.timeout)
                };
                within(deadline, run)
                    .await
                    .map(|result| OneOrMany::One(Some(result)))
            } else {
                // A loop, not `map`: a closure here trips the `Send` check of the boxed run.
                let mut runs = Vec::with_capacity(range.len());
                flags.reserve(range.len());
                for (p, call) in planned.by_ref().take(range.len()).zip(group_calls) {
                    flags.push(p.return_direct);
                    runs.push(run_call(agent, &base, call, p.dispatch, p.timeout));
                }
                within(
                    deadline,
                    futures::stream::iter(runs)
                        .buffered(parts.max_parallel_tools)
                        .collect::<Vec<_>>(),
                )
                .await
                .map(|results| OneOrMany::Many(results.into_iter()))
            };
            let flags = if range.len() == 1 {
                std::slice::from_ref(&one_flag)
            } else {
                &flags[..]
            };
            drop(base);
            machine.add_usage(scope.absorb(&mut record.usage, &mut record.request_usage));
            let Some(mut results) = results else {
                record.skip(
                    &calls.as_slice()[range.start..],
                    "the run's time limit was reached",
                );
                return Err(record.fail(time_limit(agent)));
            };

            // State updates of successful calls, applied in the order the model emitted the
            // calls, now that no tool holds the snapshot.
            for (result, updates) in results.as_mut_slice() {
                if result.is_ok() && !updates.is_empty() {
                    let Some(target) = Arc::get_mut(&mut state) else {
                        record.skip(&calls.as_slice()[range.start..], "the run stopped");
                        return Err(record.fail(RunErrorKind::StateInUse));
                    };
                    updates.take().apply(target);
                }
            }

            for (call, (result, _)) in group_calls.iter().zip(results.as_slice()) {
                record.messages.push(tool_message(call, result));
            }
            // What the batch decides, worked out in a block so that nothing it held is kept
            // in the run's future across the final `finish`.
            let direct = {
                let verdict = {
                    let mut outcomes = group_calls.iter().zip(results.as_slice()).zip(flags).map(
                        |((call, (result, _)), &return_direct)| CallOutcome {
                            tool: &call.name,
                            return_direct,
                            result,
                        },
                    );
                    if range.len() == 1 {
                        match outcomes.next() {
                            Some(one) => machine.after_tools(std::slice::from_ref(&one)),
                            None => AfterTools::Continue,
                        }
                    } else {
                        machine.after_tools(&outcomes.collect::<Vec<_>>())
                    }
                };
                let first_step = record.steps.len();
                // The group's calls are done with (later error paths only skip the calls after
                // the group): each moves into its step.
                for (call, (result, _)) in
                    calls.as_mut_slice()[range.clone()].iter_mut().zip(results)
                {
                    let step = Step {
                        turn,
                        call: std::mem::replace(call, ToolCall::new("", "", "")),
                        result,
                    };
                    if sinks.is_some() {
                        emit(AgentEvent::ToolResult(Box::new(step.clone())));
                    }
                    record.steps.push(step);
                }
                match verdict {
                    AfterTools::Continue => None,
                    AfterTools::Fail(kind) => {
                        record.skip(&calls.as_slice()[range.end..], "the run stopped");
                        return Err(record.fail(kind));
                    }
                    AfterTools::ReturnDirect(index) => {
                        record.skip(&calls.as_slice()[range.end..], "a tool ended the run");
                        let step = &record.steps[first_step + index];
                        let tool = step.call.name.clone();
                        let content = match &step.result {
                            Ok(output) => output.content.clone(),
                            Err(_) => Vec::new(),
                        };
                        let parsed = parts.output.parse(&AssistantMessage {
                            content,
                            ..AssistantMessage::default()
                        });
                        match parsed {
                            OutputParse::Done(output) => {
                                Some((output, StopReason::ReturnDirect { tool }))
                            }
                            OutputParse::Retry { error, .. } | OutputParse::Refused(error) => {
                                return Err(
                                    record.fail(RunErrorKind::ReturnDirectOutput { tool, error })
                                );
                            }
                            OutputParse::Continue => {
                                let error = "it was not accepted as a final answer".to_string();
                                return Err(
                                    record.fail(RunErrorKind::ReturnDirectOutput { tool, error })
                                );
                            }
                        }
                    }
                }
            };
            if let Some((output, stop_reason)) = direct {
                if parts.middleware.is_empty() {
                    return finish_plain(record, state, output, stop_reason);
                }
                return Box::pin(finish(agent, &context, record, state, output, stop_reason)).await;
            }
        }
        if let Some(j) = journal.as_deref_mut()
            && let Err(kind) = j
                .save(SavePoint::ToolsDone, &record, &state, &machine)
                .await
        {
            return Err(record.fail(kind));
        }
    }
}

/// `fut`, or `None` when the deadline passes first.
///
/// Not an `async fn`: that would hold `fut` twice (the argument and the awaited value).
pub(super) fn within<F: Future>(
    deadline: Option<Instant>,
    fut: F,
) -> impl Future<Output = Option<F::Output>> {
    match deadline {
        None => Either::Left(fut.map(Some)),
        Some(deadline) => Either::Right(tokio::time::timeout_at(deadline, fut).map(Result::ok)),
    }
}

pub(super) fn time_limit<T, O, C, S>(agent: &Agent<T, O, C, S>) -> RunErrorKind {
    let max = agent
        .parts
        .policy
        .limits
        .max_execution_time
        .unwrap_or(Duration::ZERO);
    RunErrorKind::LimitExceeded(Limit::Time { max })
}
