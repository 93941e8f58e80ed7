//! One model turn of a run with middleware: `before_model` hooks, the request through
//! `wrap_model_call`, and `after_model` hooks. The driver boxes it (see `drive_loop`); a run
//! without middleware never makes it.

use std::sync::{Arc, Mutex};

use tokio::time::Instant;

use super::builder::Agent;
use super::driver::{Sinks, time_limit, within};
use super::hooks::{End, answers, counters, hook_error};
use super::machine::Machine;
use super::model_call::{Forward, send};
use super::output_tap::OutputTap;
use super::record::Record;
use super::request::build;
use super::toolset::Toolset;
use crate::message::Message;
use crate::middleware::chain::HookKind;
use crate::middleware::{AfterModel, BeforeModel, Forwarded, ReviewRequest};
use crate::model::{ChatResponse, StreamEvent, Tools};
use crate::output::{OutputParse, OutputSpec};
use crate::run::AgentEvent;
use crate::run::RequestUsage;
use crate::run::RunErrorKind;

/// What a model turn with middleware produced.
pub(super) enum Turned {
    /// The model's answer (or a middleware's in its place), whether the request sent a
    /// closed output schema, and the model answers in the transcript it was sent.
    Answer(ChatResponse, bool, u32),
    /// A `before_model` hook ended the run.
    End(End),
}

/// How a turn through the middleware ended.
pub(super) enum MiddlewareTurn {
    /// The answer to go on with, and whether the request sent a closed output schema.
    Answer(ChatResponse, bool),
    /// The answer was set aside and the model is asked again.
    Again,
    /// A hook ended the run.
    End(End),
    /// Pause on this answer for these reviews.
    Pause(ChatResponse, Vec<ReviewRequest>),
}

/// One model turn of a run with middleware: the turn's start event, [`model_turn`] (the
/// model's deltas forwarded to `events` in a streamed run), then [`after_model`].
#[allow(clippy::too_many_arguments)]
pub(super) async fn middleware_turn<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    record: &mut Record,
    context: &C,
    state: &mut Arc<S>,
    machine: &mut Machine,
    turn: u32,
    with_tools: bool,
    deadline: Option<Instant>,
    sinks: Option<&Sinks<O::Output, S, T::Event>>,
) -> Result<MiddlewareTurn, RunErrorKind>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    if let Some(sinks) = sinks {
        // A dropped receiver means the stream was dropped, which also drops this future.
        let _ = sinks.events.send(AgentEvent::TurnStart { turn });
    }
    // Taken apart in the statement that awaits it: a `Turned` local would keep its room in
    // this future beside the answer moved out of it, across the `after_model` hooks.
    let (mut response, closed, thread) = match model_turn(
        agent, record, context, state, machine, turn, with_tools, deadline, sinks,
    )
    .await?
    {
        Turned::Answer(response, closed, thread) => (response, closed, thread),
        Turned::End(end) => return Ok(MiddlewareTurn::End(end)),
    };
    Ok(
        match after_model(
            agent,
            record,
            context,
            state,
            machine,
            turn,
            thread,
            &mut response,
        )
        .await?
        {
            AfterAnswer::Go => MiddlewareTurn::Answer(response, closed),
            AfterAnswer::Again => MiddlewareTurn::Again,
            AfterAnswer::End(end) => MiddlewareTurn::End(end),
            AfterAnswer::Pause(reviews) => MiddlewareTurn::Pause(response, reviews),
        },
    )
}

/// `before_model` hooks, the request (built by [`build`] from what the hooks left), and the
/// model call through `wrap_model_call`, its deltas forwarded to `events` (a streamed run).
#[allow(clippy::too_many_arguments)]
pub(super) async fn model_turn<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    record: &mut Record,
    context: &C,
    state: &mut Arc<S>,
    machine: &Machine,
    turn: u32,
    with_tools: bool,
    deadline: Option<Instant>,
    sinks: Option<&Sinks<O::Output, S, T::Event>>,
) -> Result<Turned, RunErrorKind>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    let parts = &agent.parts;
    let chain = &parts.middleware;
    let mut thread = answers(&record.messages);
    // Streamed deltas reach the run's stream through the model's wrappers.
    let is_output_tool = |name: &str| parts.output.is_output_tool(name);
    // The model a `before_model` hook left, which the call borrows.
    let chosen;
    let closed;
    let forward;
    let sink;
    // The hooks' request parts, and the request built from them and moved into the call, live
    // inside this block: this future does not keep room for them (≈ 400 bytes) beside the
    // call, which holds the request.
    let call = {
        // The request's parts go through `before_model` hooks only when some middleware runs
        // them: a chain whose hooks there are all known defaults builds the request as a run
        // without middleware does.
        let before = if chain.runs(HookKind::BeforeModel) {
            let mut before = BeforeModel {
                messages: std::mem::take(&mut record.messages),
                tools: if with_tools {
                    agent.definitions.clone()
                } else {
                    Tools::new()
                },
                settings: parts.settings.clone(),
                model: Arc::clone(&parts.model),
                compacted: None,
            };
            let flow = {
                let cx = counters(record, turn, machine.usage(), thread);
                chain.before_model(&mut before, context, state, cx).await
            };
            record.messages = std::mem::take(&mut before.messages);
            record.compacted = before.compacted.take().map(Box::new);
            if let Some(end) = flow.map_err(hook_error)? {
                return Ok(Turned::End(end));
            }
            // A hook may have edited the transcript.
            thread = answers(&record.messages);
            Some(before)
        } else {
            None
        };
        let (settings, tools) = match before {
            Some(BeforeModel {
                model,
                settings,
                tools,
                ..
            }) => {
                chosen = Some(model);
                (Some(settings), tools)
            }
            None => {
                chosen = None;
                let tools = if with_tools {
                    agent.definitions.clone()
                } else {
                    Tools::new()
                };
                (None, tools)
            }
        };
        let model = chosen.as_ref().unwrap_or(&parts.model);
        let request = build(
            &parts.output,
            model.profile(),
            record.messages.clone(),
            tools,
            with_tools,
            settings.as_ref().unwrap_or(&parts.settings),
        );
        tracing::debug!(turn, messages = request.messages.len(), "model request");
        closed = parts.output.sent_closed(&request);
        forward = sinks.map(|sinks| {
            Mutex::new(Forward {
                events: &sinks.events,
                turn,
                tap: OutputTap::new(&parts.output, &request),
                is_output_tool: &is_output_tool,
                reported: &sinks.reported,
            })
        });
        sink = |event| match &forward {
            Some(fw) => send(&mut fw.lock().unwrap_or_else(|p| p.into_inner()), event),
            None => Forwarded::Queued,
        };
        let sink: Option<&(dyn Fn(StreamEvent) -> Forwarded + Send + Sync)> =
            forward.as_ref().map(|_| &sink as _);
        let cx = counters(record, turn, machine.usage(), thread);
        within(
            deadline,
            chain.call_model(model, request, context, state, cx, sink),
        )
    };
    let answer = call.await;
    match answer {
        None => Err(time_limit(agent)),
        Some(Err(error)) => Err(hook_error(error)),
        Some(Ok(Err(error))) => Err(RunErrorKind::Model(error)),
        Some(Ok(Ok(response))) => Ok(Turned::Answer(response, closed, thread)),
    }
}

/// What `after_model` hooks decided.
pub(super) enum AfterAnswer {
    /// Go on with the answer.
    Go,
    /// The answer was set aside and the model is asked again.
    Again,
    /// End the run with this answer.
    End(End),
    /// Pause for these reviews.
    Pause(Vec<ReviewRequest>),
}

/// `after_model` hooks, in reverse order; counts the answer's usage when it is set aside.
/// `thread` is the number of model answers in the transcript the request was sent.
#[allow(clippy::too_many_arguments)]
pub(super) async fn after_model<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    record: &mut Record,
    context: &C,
    state: &mut Arc<S>,
    machine: &mut Machine,
    turn: u32,
    thread: u32,
    response: &mut ChatResponse,
) -> Result<AfterAnswer, RunErrorKind>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    let flow = {
        // The answer counts as the thread's latest model call.
        let cx = counters(record, turn, machine.usage(), thread.saturating_add(1));
        agent
            .parts
            .middleware
            .after_model(response, context, state, cx)
            .await
            .map_err(hook_error)?
    };
    let Some((flow, by)) = flow else {
        return Ok(AfterAnswer::Go);
    };
    let set_aside = |record: &mut Record, machine: &mut Machine| {
        record.usage += response.usage;
        record.request_usage.push(RequestUsage {
            model: response.model.clone(),
            usage: response.usage,
            agent: None,
        });
        machine.add_usage(response.usage);
    };
    Ok(match flow {
        AfterModel::Continue => AfterAnswer::Go,
        AfterModel::End(message) => {
            set_aside(record, machine);
            AfterAnswer::End(End {
                message,
                by: by.to_owned(),
            })
        }
        AfterModel::AskAgain(feedback) => {
            set_aside(record, machine);
            let calls = response.message.tool_calls.clone();
            record
                .messages
                .push(Message::Assistant(response.message.clone()));
            record.skip(&calls, "the answer was sent back");
            record.messages.extend(feedback);
            AfterAnswer::Again
        }
        AfterModel::Pause(reviews) => {
            // Only an answer whose calls are about to run can pause.
            let will_run = !reviews.is_empty()
                && !machine.is_finalizing()
                && !response.message.tool_calls.is_empty()
                && matches!(
                    agent.parts.output.parse(&response.message),
                    OutputParse::Continue
                );
            if will_run {
                AfterAnswer::Pause(reviews)
            } else {
                AfterAnswer::Go
            }
        }
    })
}
