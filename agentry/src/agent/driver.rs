//! The async driver: awaits the I/O that [`RunCore`]'s phases hand it (model calls, tool
//! groups, checkpoints, middleware hooks); the [`Machine`](super::machine::Machine) decides.
//!
//! Nothing is spawned: model calls and tool calls are futures polled by the run's own future
//! (tool calls of one batch through `buffered`), so dropping the run cancels all of them.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::{BoxFuture, Either};
use tokio::time::Instant;

use super::builder::Agent;
use super::call::{group_len, run_call};
use super::call_group::{await_group, group_runs};
use super::core::{Answered, RunCore};
use super::event_queue::{EventReceiver, EventSender, event_queue};
use super::finish::{end_with, finish_plain, finish_run};
use super::hooks;
use super::model_call::{Forward, call_model};
use super::model_turn::{self, MiddlewareTurn};
use super::one_or_many::OneOrMany;
use super::output_tap::OutputTap;
use super::resume::Start;
use super::thread::{Journal, SavePoint};
use super::toolset::Toolset;
use crate::guard::billed::Reported;
use crate::guard::input::{self, Raced};
use crate::middleware::chain::HookKind;
use crate::output::OutputSpec;
use crate::run::{AgentEvent, Limit, Outcome, RunError, RunErrorKind};
use crate::telemetry;

/// Where a streamed run sends its events (tools' custom events included).
pub(crate) struct Sinks<T, S, E> {
    pub(crate) events: EventSender<T, S, E>,
    /// The usage the request in flight has reported so far.
    pub(crate) reported: Reported,
}

impl<T, S, E> Sinks<T, S, E> {
    /// The sinks of a new streamed run, and the stream's end of its queue.
    pub(crate) fn new() -> (Sinks<T, S, E>, EventReceiver<T, S, E>) {
        let (events, receiver) = event_queue();
        (
            Sinks {
                events,
                reported: Reported::default(),
            },
            receiver,
        )
    }
}

/// How a run ended: finished or paused, or its error.
pub(crate) type RunEnd<T, S> = Result<Outcome<T, S>, RunError>;

/// A run's future: the loop, boxed, under its `invoke_agent` span. The box is a trait
/// object, so the type names no argument of the method that started the run: a public run
/// future ([`RunFuture`](super::RunFuture)) can hold it, and a wrong argument to that method
/// is reported once, at the call.
pub(crate) type Run<'a, T, S> = telemetry::spans::TracedRun<'a, BoxFuture<'a, RunEnd<T, S>>>;

/// Runs the loop to its end, under the run's `invoke_agent` span.
///
/// The run's future is boxed here, once: it is most of a kilobyte, and unboxed it would be copied
/// whole each time a caller moves the future holding it (into a task, into `join_all`, into
/// another `async` block). The span wrapper is outside the box, so the loop's future is moved
/// once (into the box) and the wrapper, a few words, wherever the caller puts it.
pub(crate) fn drive<'a, T, O, C, S>(
    agent: &'a Agent<T, O, C, S>,
    start: Start<S>,
    context: Arc<C>,
    sinks: Option<Sinks<O::Output, S, T::Event>>,
) -> Run<'a, O::Output, S>
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
pub(crate) fn drive_saving<'a, T, O, C, S>(
    agent: &'a Agent<T, O, C, S>,
    start: Start<S>,
    context: Arc<C>,
    sinks: Option<Sinks<O::Output, S, T::Event>>,
    journal: Option<&'a mut (dyn Journal<S> + Send)>,
) -> Run<'a, O::Output, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    let (name, model) = (agent.parts.name.as_deref(), &*agent.parts.model);
    let run: BoxFuture<'a, _> = Box::pin(drive_loop(agent, start, context, sinks, journal));
    telemetry::spans::TracedRun::new(run, name, model)
}

/// The loop: awaits what [`RunCore`]'s phases hand it, in order — a checkpoint, the
/// `before_agent` hooks, then per turn the model's answer, each group of tool calls, and a
/// checkpoint after the tools.
async fn drive_loop<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    start: Start<S>,
    context: Arc<C>,
    sinks: Option<Sinks<O::Output, S, T::Event>>,
    mut journal: Option<&mut (dyn Journal<S> + Send)>,
) -> Result<Outcome<O::Output, S>, RunError>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    // Boxed on its own: the loop's future then holds a pointer, not the core, and nor does
    // the future of its end (`finish_run`, `end_with`), which takes the core over; the run's
    // allocations stay in the allocator's per-thread caches (each under 1 KiB).
    let mut core = Box::new(RunCore::begin(agent, start, context, sinks));
    // The input guardrails' check, raced against the first request of a fresh run.
    let mut input_check = core.input_check();
    // A turn to make again: its request was cancelled by an input guardrail's rewrite.
    let mut redo = None;
    if let Some(j) = journal.as_deref_mut()
        && let Err(kind) = save(j, SavePoint::Started, &core).await
    {
        return Err(core.fail(kind));
    }
    if !core.is_replaying() && core.runs(HookKind::BeforeAgent) {
        let RunCore {
            record,
            context,
            state,
            ..
        } = &mut *core;
        match Box::pin(hooks::before_agent(agent, record, context, state)).await {
            Ok(None) => {}
            Ok(Some(end)) => return end_with(core, end).await,
            Err(kind) => return Err(core.fail(kind)),
        }
    }
    loop {
        let turn = match redo.take().map_or_else(|| core.next_turn(), Ok) {
            Ok(turn) => turn,
            Err(limit) => return Err(core.fail(RunErrorKind::LimitExceeded(limit))),
        };
        // The answer, taken apart inside a block: what it held (and the request) is not kept
        // in the run's future across the tool calls' awaits.
        let mut calls = {
            let (response, closed) = if let Some(replayed) = core.take_replay(turn) {
                replayed
            } else if !core.has_middleware() {
                let is_output_tool = |name: &str| agent.parts.output.is_output_tool(name);
                let closed;
                // The request is moved into the call inside this block, so it is not kept
                // beside the call's future while it is awaited.
                let answer = {
                    let request = core.request(turn);
                    closed = agent.parts.output.sent_closed(&request);
                    tracing::debug!(
                        turn = turn.number,
                        messages = request.messages.len(),
                        "model request"
                    );
                    core.emit(AgentEvent::TurnStart { turn: turn.number });
                    let forward = core.sinks.as_ref().map(|s| Forward {
                        events: &s.events,
                        turn: turn.number,
                        tap: OutputTap::new(&agent.parts.output, &request),
                        is_output_tool: &is_output_tool,
                        reported: &s.reported,
                    });
                    let call = within(
                        core.deadline,
                        call_model(&*agent.parts.model, request, forward),
                    );
                    // One future either way (held once in the run's): the call, or the call
                    // raced by the input guardrails, boxed so only a run with them pays for
                    // the race's room.
                    match input_check.take() {
                        None => Either::Left(call.map(Raced::Passed)),
                        Some(check) => Either::Right(Box::pin(input::race(check, call))),
                    }
                }
                .await;
                let answer = match answer {
                    Raced::Passed(answer) => answer,
                    Raced::Stopped { verdict, answer } => {
                        let answered = answer.as_ref().and_then(|a| a.as_ref()?.as_ref().ok());
                        match core.input_stopped(turn, verdict, answered) {
                            Ok(()) => {
                                redo = Some(turn);
                                continue;
                            }
                            Err(kind) => return Err(core.fail(kind)),
                        }
                    }
                };
                match answer {
                    Some(Ok(response)) => (response, closed),
                    Some(Err(error)) => return Err(core.fail(RunErrorKind::Model(error))),
                    None => return Err(core.fail(time_limit(agent))),
                }
            } else {
                // Boxed: a turn through middleware holds much more across its awaits than a
                // plain one, and the run's future would carry that room (and its copies)
                // without it.
                let RunCore {
                    record,
                    context,
                    state,
                    machine,
                    sinks,
                    deadline,
                    ..
                } = &mut *core;
                // The transcript as it was: a turn cancelled by an input guardrail may have
                // been inside a `before_model` hook, holding it.
                let before = input_check.as_ref().map(|_| record.messages.clone());
                let turned = Box::pin(model_turn::middleware_turn(
                    agent,
                    record,
                    context,
                    state,
                    machine,
                    turn.number,
                    turn.with_tools,
                    *deadline,
                    sinks.as_ref(),
                ));
                let turned = match input_check.take() {
                    None => turned.await,
                    Some(check) => match Box::pin(input::race(check, turned)).await {
                        Raced::Passed(turned) => turned,
                        Raced::Stopped { verdict, answer } => {
                            let answered = match &answer {
                                Some(Ok(
                                    MiddlewareTurn::Answer(response, _)
                                    | MiddlewareTurn::Pause(response, _),
                                )) => Some(response),
                                _ => None,
                            };
                            if answer.is_none()
                                && let Some(before) = before
                            {
                                core.record.messages = before;
                            }
                            match core.input_stopped(turn, verdict, answered) {
                                Ok(()) => {
                                    redo = Some(turn);
                                    continue;
                                }
                                Err(kind) => return Err(core.fail(kind)),
                            }
                        }
                    },
                };
                // The turn's outcome is boxed: the run's future does not keep room for it
                // across the awaits below (a save, the run's end, a pause).
                let turned = Box::new(turned);
                // A `before_model` hook compacted the transcript: a thread saves the
                // compacted view before the answer is taken in.
                if core.record.compacted.is_some() {
                    if let Some(j) = journal.as_deref_mut()
                        && let Err(kind) = save(j, SavePoint::Compacted, &core).await
                    {
                        return Err(core.fail(kind));
                    }
                    core.record.compacted = None;
                }
                match *turned {
                    Ok(MiddlewareTurn::Answer(response, closed)) => (response, closed),
                    Ok(MiddlewareTurn::Again) => continue,
                    Ok(MiddlewareTurn::End(end)) => return end_with(core, end).await,
                    Ok(MiddlewareTurn::Pause(response, reviews)) => {
                        // The core's parts end with this block, before the await.
                        let paused = {
                            let RunCore {
                                record,
                                state,
                                machine,
                                ..
                            } = *core;
                            hooks::pause(
                                agent,
                                record,
                                state,
                                &machine,
                                turn.number,
                                response,
                                reviews,
                            )
                        };
                        return agent.register_pause(paused).await;
                    }
                    Err(kind) => return Err(core.fail(kind)),
                }
            };
            match core.answered(turn, response, closed) {
                Ok(Answered::RunTools(calls)) => calls,
                Ok(Answered::Again) => continue,
                Ok(Answered::Finish(output, stop_reason)) => {
                    if core.ends_plainly() {
                        return finish_plain(core.record, core.state, output, stop_reason);
                    }
                    return finish_run(core, output, stop_reason).await;
                }
                Err(kind) => return Err(core.fail(kind)),
            }
        };
        if let Some(j) = journal.as_deref_mut()
            && let Err(kind) = save(j, SavePoint::Answered, &core).await
        {
            return Err(core.fail(kind));
        }

        // Plan every call, then run them in groups: consecutive concurrent calls together,
        // each sequential call alone.
        let mut planned = core.plan(calls.as_slice());
        let mut start = 0;
        while !planned.as_slice().is_empty() {
            let range = start..start + group_len(planned.as_slice());
            start = range.end;
            let (scope, base) = core.tool_runtime();
            // Whether each call's tool is `return_direct`; one call (the common case) needs no
            // list, and is awaited as it is, without a buffered stream.
            let mut flags = Vec::new();
            let mut one_flag = false;
            let results = if range.len() == 1 {
                // Boxed: held inline, the call (≈ 800 bytes, its timeout and span) would make
                // every run's boxed future bigger than the allocator's per-thread caches take
                // (1 KiB), which cost more than this allocation of a size they do take. Boxed
                // inside the block: a local holding the call's future itself would keep room
                // for it in the run's future across the await below (1,632 bytes in a build
                // without debug info, where rustc's layout keeps it; 856 with the box here).
                let run = {
                    let Some(p) = planned.next() else { break };
                    one_flag = p.return_direct;
                    Box::pin(run_call(
                        agent,
                        &base,
                        &calls.as_slice()[range.start],
                        p.dispatch,
                        p.timeout,
                    ))
                };
                within(core.deadline, run)
                    .await
                    .map(|result| OneOrMany::One(Some(result)))
            } else {
                let group = planned.by_ref().take(range.len());
                let runs = group_runs(
                    agent,
                    &base,
                    group,
                    &calls.as_slice()[range.clone()],
                    &mut flags,
                );
                within(
                    core.deadline,
                    Box::pin(await_group(
                        runs,
                        &mut core,
                        journal.as_deref_mut(),
                        &calls.as_slice()[range.clone()],
                    )),
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
            let last = planned.as_slice().is_empty();
            match core.group_done(turn, calls.as_mut_slice(), range, scope, results, flags) {
                Ok(None) => {}
                Ok(Some((output, stop_reason))) => {
                    if core.ends_plainly() {
                        return finish_plain(core.record, core.state, output, stop_reason);
                    }
                    return finish_run(core, output, stop_reason).await;
                }
                Err(kind) => return Err(core.fail(kind)),
            }
            // A group that is not the answer's last: its results are saved now, so a crash
            // in a later group does not count them as lost.
            if !last
                && let Some(j) = journal.as_deref_mut()
                && let Err(kind) = save(j, SavePoint::CallDone, &core).await
            {
                return Err(core.fail(kind));
            }
        }
        if core.has_questions() {
            let paused = core.paused_at_questions(turn.number);
            return agent.register_pause(paused).await;
        }
        if let Some(j) = journal.as_deref_mut()
            && let Err(kind) = save(j, SavePoint::ToolsDone, &core).await
        {
            return Err(core.fail(kind));
        }
    }
}

/// Saves the run at `point`.
pub(super) fn save<'j, T, O, C, S>(
    journal: &'j mut (dyn Journal<S> + Send),
    point: SavePoint,
    core: &'j RunCore<'_, T, O, C, S>,
) -> BoxFuture<'j, Result<(), RunErrorKind>>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    let may_compact = core.runs(HookKind::BeforeModel);
    journal.save(point, &core.record, &core.state, &core.machine, may_compact)
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
