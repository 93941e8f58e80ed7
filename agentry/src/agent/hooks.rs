//! Where the driver calls into middleware and pauses: each function is one call site of the
//! loop, so the driver stays a sequence of decisions. A model turn through the middleware has
//! its own file, [`model_turn`](super::model_turn).

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;

use super::builder::Agent;
use super::call::{Dispatch, Planned, dispatch_call, plan};
use super::input::Input;
use super::machine::Machine;
use super::record::Record;
use super::resume::{Replay, Start};
use super::toolset::Toolset;
use crate::message::{Message, ToolCall};
use crate::messages::Messages;
use crate::middleware::chain::{Counters, HookError};
use crate::middleware::{MiddlewareError, ReviewRequest};
use crate::model::ChatResponse;
use crate::output::{OutputParse, OutputSpec};
use crate::run::RunSnapshot;
use crate::run::StopReason;
use crate::run::{Outcome, PAUSE_FORMAT_VERSION, Pause, PausedAnswer, pending_calls};
use crate::run::{RunError, RunErrorKind};
use crate::tool::runtime::lock;
use crate::tool::{ToolCallError, ToolOutput, ToolRuntime};
use crate::usage::Usage;

pub(super) use crate::middleware::chain::Ended as End;

/// What the start of a run is made of.
pub(super) struct Begin<S> {
    pub(super) machine: Machine,
    pub(super) state: Arc<S>,
    pub(super) record: Record,
    pub(super) replay: Option<Box<Replay>>,
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
                completed: Vec::new(),
                compacted: None,
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
                    completed: Vec::new(),
                    compacted: None,
                },
                replay,
                input: None,
            }
        }
    }
}

pub(super) fn counters(record: &Record, turn: u32, usage: Usage, answers: u32) -> Counters<'_> {
    Counters {
        turn,
        usage,
        steps: &record.steps,
        thread_model_calls: answers,
    }
}

/// Model answers in the transcript (this run's and the history's).
pub(super) fn answers(messages: &[Message]) -> u32 {
    let n = messages
        .iter()
        .filter(|m| matches!(m, Message::Assistant(_)))
        .count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

pub(super) fn hook_error(error: HookError) -> RunErrorKind {
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

/// A middleware's answer that ends the run, parsed as the agent's output and put in the
/// transcript; the stop reason names the middleware. Not a future: the run's end awaits only
/// the `after_agent` hooks after it (see `finish::end_with`).
pub(super) fn ended<O: OutputSpec>(
    output: &O,
    record: &mut Record,
    end: End,
) -> Result<(O::Output, StopReason), RunErrorKind> {
    let End { message, by } = end;
    let refuse = |error: String, by: String| {
        RunErrorKind::Middleware(MiddlewareError::new(
            by,
            format!("it ended the run with an answer that is not a valid output: {error}"),
        ))
    };
    match output.parse(&message) {
        OutputParse::Done(parsed) => {
            record.messages.push(Message::Assistant(message));
            Ok((parsed, StopReason::Ended { by }))
        }
        OutputParse::Retry { error, .. } | OutputParse::Refused(error) => Err(refuse(error, by)),
        OutputParse::Continue => Err(refuse("it is not a final answer".to_string(), by)),
    }
}

/// Stops the run before the answer's calls run: the run before the request, the answer, and
/// the calls with their reviews. The pause gets an id when the agent can record its resume
/// (it has a checkpointer or a store), and a seal when the agent has a key.
pub(super) fn pause<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    record: Record,
    state: Arc<S>,
    machine: &Machine,
    turn: u32,
    mut response: ChatResponse,
    reviews: Vec<ReviewRequest>,
) -> Result<Outcome<O::Output, S>, RunError>
where
    O: OutputSpec,
{
    let state = match Arc::try_unwrap(state) {
        Ok(state) => state,
        Err(_) => return Err(record.fail(RunErrorKind::StateInUse)),
    };
    let mut counters = machine.counters();
    // The snapshot is the run before this request: replaying the answer counts it again.
    counters.turns = turn.saturating_sub(1);
    let calls = pending_calls(&mut response, reviews);
    tracing::debug!(turn, calls = calls.len(), "run paused for review");
    let pause = Pause {
        format_version: PAUSE_FORMAT_VERSION,
        id: new_pause_id(agent),
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
        seal: None,
    };
    sealed(agent, pause)
}

/// A new pause's id, when the agent can record that it was resumed (it has a checkpointer
/// or a store).
pub(super) fn new_pause_id<T, O, C, S>(agent: &Agent<T, O, C, S>) -> Option<String> {
    let persists = agent.parts.checkpointer.is_some() || agent.parts.store.is_some();
    persists.then(|| format!("{:016x}{:016x}", crate::random::u64(), crate::random::u64()))
}

/// The run's end at `pause`, sealed when the agent has a key.
pub(super) fn sealed<T, O: OutputSpec, C, S>(
    agent: &Agent<T, O, C, S>,
    mut pause: Pause<S>,
) -> Result<Outcome<O::Output, S>, RunError> {
    if let Some(sealer) = &agent.parts.sealer
        && let Err(error) = sealer.seal(&mut pause)
    {
        let kind = RunErrorKind::Unsealable {
            reason: error.to_string(),
            source: error,
        };
        return Err(RunError::new(kind, pause.partial()));
    }
    Ok(Outcome::Paused(Box::new(pause)))
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
