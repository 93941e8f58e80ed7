//! Where the driver calls into middleware and pauses: each function is one call site of the
//! loop, so the driver stays a sequence of decisions.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use tokio::time::Instant;

use super::builder::Agent;
use super::call::{Dispatch, Planned, dispatch_call, plan};
use super::driver::{Forward, Record, build_request, finish, send, time_limit, within};
use super::error::{RunError, RunErrorKind};
use super::event_queue::EventSender;
use super::input::Input;
use super::machine::Machine;
use super::output_tap::OutputTap;
use super::pause::{
    Outcome, PAUSE_FORMAT_VERSION, Pause, PausedAnswer, Replay, Start, pending_calls,
};
use super::result::{RequestUsage, StopReason};
use super::snapshot::RunSnapshot;
use super::stream::AgentEvent;
use super::toolset::Toolset;
use crate::message::{Message, ToolCall};
use crate::messages::Messages;
use crate::middleware::chain::{Counters, HookError};
use crate::middleware::{AfterModel, BeforeModel, MiddlewareError, ModelRequest, ReviewRequest};
use crate::model::{ChatRequest, ChatResponse, StreamEvent};
use crate::output::{OutputParse, OutputSpec};
use crate::tool::runtime::lock;
use crate::tool::{ToolCallError, ToolOutput, ToolRuntime};
use crate::usage::Usage;

pub(super) use crate::middleware::chain::Ended as End;

/// What the start of a run is made of.
pub(super) struct Begin<S> {
    pub(super) machine: Machine,
    pub(super) state: Arc<S>,
    pub(super) record: Record,
    pub(super) replay: Option<Replay>,
    pub(super) input: Option<Input>,
}

/// The machine, state and record a run starts with; the replay or the input.
pub(super) fn start<T, O, C, S>(agent: &Agent<T, O, C, S>, start: Start<S>) -> Begin<S> {
    let policy = agent.parts.policy;
    match start {
        Start::Fresh { input, state } => Begin {
            machine: Machine::new(policy),
            state: Arc::new(state),
            record: Record {
                messages: Messages::new(),
                usage: Usage::default(),
                request_usage: Vec::new(),
                steps: Vec::new(),
            },
            replay: None,
            input: Some(input),
        },
        Start::Resume { snapshot, replay } => {
            let snapshot = *snapshot;
            Begin {
                machine: Machine::from_counters(policy, snapshot.counters),
                state: Arc::new(snapshot.state),
                record: Record {
                    messages: snapshot.messages.into(),
                    usage: snapshot.usage,
                    request_usage: snapshot.request_usage,
                    steps: snapshot.steps,
                },
                replay,
                input: None,
            }
        }
    }
}

fn counters(record: &Record, turn: u32, usage: Usage, answers: u32) -> Counters<'_> {
    Counters {
        turn,
        usage,
        steps: &record.steps,
        thread_model_calls: answers,
    }
}

/// Model answers in the transcript (this run's and the history's).
fn answers(messages: &[Message]) -> u32 {
    let n = messages
        .iter()
        .filter(|m| matches!(m, Message::Assistant(_)))
        .count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn hook_error(error: HookError) -> RunErrorKind {
    match error {
        HookError::Middleware(e) => RunErrorKind::Middleware(e),
        HookError::StateInUse => RunErrorKind::StateInUse,
    }
}

/// `before_agent` hooks on the input.
pub(super) async fn before_agent<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    record: &mut Record,
    context: &C,
    state: &mut Arc<S>,
) -> Result<Option<End>, RunErrorKind>
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    let chain = &agent.parts.middleware;
    let mut messages = std::mem::take(&mut record.messages);
    let cx = Counters {
        turn: 0,
        usage: Usage::default(),
        steps: &[],
        thread_model_calls: answers(&messages),
    };
    let flow = chain.before_agent(&mut messages, context, state, cx).await;
    record.messages = messages;
    flow.map_err(hook_error)
}

/// What a model turn with middleware produced.
pub(super) enum Turned {
    /// The model's answer (or a middleware's in its place), and whether the request sent a
    /// closed output schema.
    Answer(ChatResponse, bool),
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

/// One model turn of a run with middleware: the turn's start event, [`model_turn`] with the
/// model's deltas forwarded to `events` (a streamed run), then [`after_model`].
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
    events: Option<&EventSender<O::Output, S>>,
) -> Result<MiddlewareTurn, RunErrorKind>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    let parts = &agent.parts;
    if let Some(events) = events {
        // A dropped receiver means the stream was dropped, which also drops this future.
        let _ = events.send(AgentEvent::TurnStart { turn });
    }
    // Streamed deltas reach the run's stream through the model's wrappers.
    let is_output_tool = |name: &str| parts.output.is_output_tool(name);
    let forward = events.map(|events| {
        let request = build_request(agent, &record.messages, with_tools);
        Mutex::new(Forward {
            events,
            turn,
            tap: OutputTap::new(&parts.output, &request),
            is_output_tool: &is_output_tool,
        })
    });
    let sink = |event| {
        if let Some(fw) = &forward {
            send(&mut fw.lock().unwrap_or_else(|p| p.into_inner()), event);
        }
    };
    let sink: Option<&(dyn Fn(StreamEvent) + Send + Sync)> = forward.as_ref().map(|_| &sink as _);
    let turned = model_turn(
        agent, record, context, state, machine, turn, with_tools, deadline, sink,
    )
    .await?;
    Ok(match turned {
        Turned::Answer(mut response, closed) => {
            match after_model(agent, record, context, state, machine, turn, &mut response).await? {
                AfterAnswer::Go => MiddlewareTurn::Answer(response, closed),
                AfterAnswer::Again => MiddlewareTurn::Again,
                AfterAnswer::End(end) => MiddlewareTurn::End(end),
                AfterAnswer::Pause(reviews) => MiddlewareTurn::Pause(response, reviews),
            }
        }
        Turned::End(end) => MiddlewareTurn::End(end),
    })
}

/// `before_model` hooks, the request, and the model call through `wrap_model_call`.
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
    sink: Option<&(dyn Fn(StreamEvent) + Send + Sync)>,
) -> Result<Turned, RunErrorKind>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    let parts = &agent.parts;
    let chain = &parts.middleware;
    let thread = answers(&record.messages);
    let mut before = BeforeModel {
        messages: std::mem::take(&mut record.messages),
        tools: if with_tools {
            agent.definitions.clone()
        } else {
            Vec::new()
        },
        settings: parts.settings.clone(),
        model: Arc::clone(&parts.model),
    };
    let flow = {
        let cx = counters(record, turn, machine.usage(), thread);
        chain.before_model(&mut before, context, state, cx).await
    };
    record.messages = std::mem::take(&mut before.messages);
    if let Some(end) = flow.map_err(hook_error)? {
        return Ok(Turned::End(end));
    }
    let offer_tools = with_tools && !before.tools.is_empty();
    let mut request = ChatRequest {
        messages: record.messages.clone(),
        parallel_tool_calls: before.settings.parallel_tool_calls.filter(|_| offer_tools),
        temperature: before.settings.temperature,
        max_tokens: before.settings.max_tokens,
        seed: before.settings.seed,
        tools: if offer_tools {
            before.tools
        } else {
            Vec::new()
        },
        ..ChatRequest::default()
    };
    parts
        .output
        .prepare(&mut request, before.model.profile(), offer_tools);
    tracing::debug!(turn, messages = request.messages.len(), "model request");
    let closed = parts.output.sent_closed(&request);
    let request = ModelRequest {
        model: before.model,
        request,
    };
    let answer = {
        let cx = counters(record, turn, machine.usage(), answers(&record.messages));
        within(
            deadline,
            chain.call_model(request, context, state, cx, sink),
        )
        .await
    };
    match answer {
        None => Err(time_limit(agent)),
        Some(Err(error)) => Err(hook_error(error)),
        Some(Ok(Err(error))) => Err(RunErrorKind::Model(error)),
        Some(Ok(Ok(response))) => Ok(Turned::Answer(response, closed)),
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
#[allow(clippy::too_many_arguments)]
pub(super) async fn after_model<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    record: &mut Record,
    context: &C,
    state: &mut Arc<S>,
    machine: &mut Machine,
    turn: u32,
    response: &mut ChatResponse,
) -> Result<AfterAnswer, RunErrorKind>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    let flow = {
        let cx = counters(record, turn, machine.usage(), answers(&record.messages) + 1);
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
            AfterAnswer::End(End { message, by })
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
        AfterModel::Interrupt(reviews) => {
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

/// Ends the run with a middleware's answer, parsed as the agent's output.
pub(super) async fn end_with<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    mut record: Record,
    context: &C,
    state: Arc<S>,
    end: End,
) -> Result<Outcome<O::Output, S>, RunError>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    let End { message, by } = end;
    let refuse = |error: String| {
        RunErrorKind::Middleware(MiddlewareError::new(
            by.clone(),
            format!("it ended the run with an answer that is not a valid output: {error}"),
        ))
    };
    match agent.parts.output.parse(&message) {
        OutputParse::Done(output) => {
            record.messages.push(Message::Assistant(message));
            let stop_reason = StopReason::Ended { by: by.clone() };
            finish(agent, context, record, state, output, stop_reason).await
        }
        OutputParse::Retry { error, .. } | OutputParse::Refused(error) => {
            Err(record.fail(refuse(error)))
        }
        OutputParse::Continue => Err(record.fail(refuse("it is not a final answer".to_string()))),
    }
}

/// Stops the run before the answer's calls run: the run before the request, the answer, and
/// the calls with their reviews.
pub(super) fn pause<T, S>(
    record: Record,
    state: Arc<S>,
    machine: &Machine,
    turn: u32,
    response: ChatResponse,
    reviews: Vec<ReviewRequest>,
) -> Result<Outcome<T, S>, RunError> {
    let state = match Arc::try_unwrap(state) {
        Ok(state) => state,
        Err(_) => return Err(record.fail(RunErrorKind::StateInUse)),
    };
    let mut counters = machine.counters();
    // The snapshot is the run before this request: replaying the answer counts it again.
    counters.turns = turn.saturating_sub(1);
    let calls = pending_calls(&response.message.tool_calls, reviews);
    tracing::debug!(turn, calls = calls.len(), "run paused for review");
    Ok(Outcome::Interrupted(Box::new(Pause {
        format_version: PAUSE_FORMAT_VERSION,
        snapshot: RunSnapshot {
            messages: record.messages.into_vec(),
            state,
            usage: record.usage,
            request_usage: record.request_usage,
            steps: record.steps,
            counters,
        },
        answer: PausedAnswer { turn, response },
        calls,
    })))
}

/// The reviewer's answer for `call`, if there is one.
pub(super) fn decided<'a, K, C, S>(
    decided: &mut Vec<(String, Result<ToolOutput, ToolCallError>)>,
    call: &ToolCall,
) -> Option<Planned<'a, K, C, S>> {
    let index = decided.iter().position(|(id, _)| *id == call.id)?;
    let (_, result) = decided.swap_remove(index);
    Some(Planned {
        dispatch: Dispatch::Decided(result),
        sequential: false,
        return_direct: false,
        timeout: None,
    })
}

/// One tool call through the `wrap_tool_call` hooks. The call is planned once already; it is
/// planned again only when a middleware changed it.
pub(super) async fn wrap_tool_call<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    runtime: &ToolRuntime<C, S>,
    call: &ToolCall,
    dispatch: Dispatch<'_, T::Call, C, S>,
) -> Result<ToolOutput, ToolCallError>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    let planned = Mutex::new(Some(dispatch));
    let handler = |c: ToolCall| -> BoxFuture<'_, Result<ToolOutput, ToolCallError>> {
        let same = c.name == call.name && c.arguments == call.arguments;
        let dispatch = same
            .then(|| lock(&planned).take())
            .flatten()
            .unwrap_or_else(|| plan(agent, &c).dispatch);
        Box::pin(dispatch_call(&agent.parts.toolset, runtime, dispatch))
    };
    agent
        .parts
        .middleware
        .call_tool(call.clone(), runtime, &handler)
        .await
}

/// `after_agent` hooks, in reverse order.
pub(super) async fn after_agent<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    record: &mut Record,
    context: &C,
    state: &mut Arc<S>,
) -> Result<(), RunErrorKind>
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    let thread = answers(&record.messages);
    let mut messages = std::mem::take(&mut record.messages);
    let result = {
        let cx = counters(record, 0, record.usage, thread);
        agent
            .parts
            .middleware
            .after_agent(&mut messages, context, state, cx)
            .await
    };
    record.messages = messages;
    result.map_err(hook_error)
}
