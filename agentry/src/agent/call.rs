//! One tool call of a run: resolving it to a tool ([`plan`]), grouping calls that may run
//! together ([`group_len`]) and running it ([`run_call`]) under its timeout, with panics
//! caught.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use std::future::Future;

use futures::FutureExt;
use futures::future::Either;
use serde_json::Value;

use super::builder::Agent;
use super::dyn_tool::{SharedDynTool, json_arguments};
use super::toolset::Toolset;
use crate::message::{ContentBlock, Message, ToolCall, ToolResultMessage};
use crate::middleware::chain::HookKind;
use crate::output::OutputSpec;
use crate::tool::{StateUpdates, ToolCallError, ToolError, ToolOutput, ToolRuntime};

/// How one call will be run.
pub(crate) enum Dispatch<'a, K, C, S> {
    Static(K),
    Dyn(&'a SharedDynTool<C, S>, Value),
    Invalid(ToolCallError),
    /// Answered by a reviewer (human in the loop); does not run.
    Decided(Result<ToolOutput, ToolCallError>),
}

/// A call resolved to what runs it, with the tool's flags.
pub(crate) struct Planned<'a, K, C, S> {
    pub(crate) dispatch: Dispatch<'a, K, C, S>,
    pub(crate) sequential: bool,
    pub(crate) return_direct: bool,
    /// The tool's own timeout, else the agent's default.
    pub(crate) timeout: Option<Duration>,
}

/// The number of calls, from the first of `planned`, that run together: a sequential call
/// runs alone, consecutive concurrent calls together.
pub(crate) fn group_len<K, C, S>(planned: &[Planned<'_, K, C, S>]) -> usize {
    match planned.first() {
        None => 0,
        Some(first) if first.sequential => 1,
        Some(_) => planned.iter().take_while(|p| !p.sequential).count(),
    }
}

/// Resolves a call to a static tool, a dynamic tool, or an error for the model.
pub(crate) fn plan<'a, T, O, C, S>(
    agent: &'a Agent<T, O, C, S>,
    call: &ToolCall,
) -> Planned<'a, T::Call, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: 'static,
    S: 'static,
{
    let parts = &agent.parts;
    let invalid = |error| Planned {
        dispatch: Dispatch::Invalid(error),
        sequential: false,
        return_direct: false,
        timeout: None,
    };
    match parts.toolset.parse(call) {
        Some(Ok(parsed)) => {
            return Planned {
                sequential: parts.toolset.is_sequential(&parsed),
                return_direct: parts.toolset.is_return_direct(&parsed),
                timeout: parts.toolset.timeout(&parsed).or(parts.tool_timeout),
                dispatch: Dispatch::Static(parsed),
            };
        }
        Some(Err(error)) => return invalid(error),
        None => {}
    }
    if parts.output.is_output_tool(&call.name) {
        return invalid(ToolCallError::Failed {
            tool: call.name.clone(),
            source: ToolError::new(
                "this is the final-answer tool: call it alone, once the other tools have answered",
            ),
        });
    }
    let dynamic = parts
        .dyn_tools
        .iter()
        .position(|t| t.definition().name == call.name);
    if let Some(index) = dynamic {
        let tool = &parts.dyn_tools[index];
        let args = json_arguments(&tool.definition(), &call.arguments).and_then(|args| {
            agent.dyn_schemas[index].check(&call.name, &args)?;
            Ok(args)
        });
        return match args {
            Ok(args) => Planned {
                sequential: tool.is_sequential(),
                return_direct: tool.is_return_direct(),
                timeout: tool.timeout().or(parts.tool_timeout),
                dispatch: Dispatch::Dyn(tool, args),
            },
            Err(error) => invalid(error),
        };
    }
    invalid(ToolCallError::UnknownTool {
        name: call.name.clone(),
        available: agent.definitions.iter().map(|d| d.name.clone()).collect(),
    })
}

/// Runs one call with its own runtime, under its timeout, catching a panic; returns the
/// result and the state updates the call queued.
///
/// A call that times out has its future dropped (a sync tool's blocking thread finishes on
/// its own; its result is discarded).
pub(crate) async fn run_call<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    base: &ToolRuntime<C, S>,
    call: &ToolCall,
    dispatch: Dispatch<'_, T::Call, C, S>,
    timeout: Option<Duration>,
) -> (Result<ToolOutput, ToolCallError>, StateUpdates<S>)
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    let span = crate::telemetry::spans::tool_span(call);
    let runtime = base.for_call(call.id.as_str());
    let runs = matches!(dispatch, Dispatch::Static(_) | Dispatch::Dyn(..));
    // One future either way, not an `async` block awaiting another: the call is held inline
    // in the run's future, and a layer would hold `dispatch` twice.
    let work = if runs && agent.parts.guards.has_tool_checks() {
        Either::Left(Box::pin(checked_call(agent, &runtime, call, dispatch)))
    } else {
        Either::Right(call_through(agent, &runtime, call, dispatch))
    };
    // A call that asks (an `Interrupt`, an external tool) stops at its question.
    let work = crate::tool::interrupt::until_asked(runtime.asks(), work);
    let caught =
        AssertUnwindSafe(crate::telemetry::spans::InSpan::new(work, span.clone())).catch_unwind();
    let outcome = match timeout {
        None => Some(caught.await),
        Some(after) => tokio::time::timeout(after, caught).await.ok(),
    };
    let result = match outcome {
        Some(Ok(result)) => result.map_err(|e| e.name_tool(&call.name)),
        Some(Err(payload)) => {
            let message = panic_message(&*payload);
            tracing::warn!(parent: &span, tool = %call.name, %message, "tool panicked; reported to the model");
            Err(ToolCallError::Panicked {
                tool: call.name.clone(),
                message,
            })
        }
        None => {
            let after = timeout.unwrap_or_default();
            tracing::warn!(parent: &span, tool = %call.name, ?after, "tool call timed out; reported to the model");
            Err(ToolCallError::timed_out(call.name.clone(), after))
        }
    };
    if let Err(error) = &result {
        tracing::debug!(parent: &span, tool = %call.name, %error, "tool call failed");
    }
    crate::telemetry::spans::finish_tool(&span, &result);
    (result, runtime.take_state_updates())
}

/// Runs a planned call, through the middleware's `wrap_tool_call` hooks when there are any.
///
/// Not an `async fn` (see `run_call`): the future it returns is the call's own.
fn call_through<'a, T, O, C, S>(
    agent: &'a Agent<T, O, C, S>,
    runtime: &'a ToolRuntime<C, S>,
    call: &'a ToolCall,
    dispatch: Dispatch<'a, T::Call, C, S>,
) -> impl Future<Output = Result<ToolOutput, ToolCallError>> + 'a
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    if !agent.parts.middleware.runs(HookKind::WrapTool) || matches!(dispatch, Dispatch::Decided(_))
    {
        Either::Left(dispatch_call(&agent.parts.toolset, runtime, dispatch))
    } else {
        Either::Right(Box::pin(super::hooks::wrap_tool_call(
            agent, runtime, call, dispatch,
        )))
    }
}

/// Runs a call between its guardrails: the tool-input guardrails first (a rewrite of the
/// arguments is planned again, so the tool parses what it will run with), then the call, then
/// the tool-output guardrails on its result.
async fn checked_call<T, O, C, S>(
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
    let guards = &agent.parts.guards;
    let context = runtime.context();
    let checked = crate::guard::tool::check_call(guards, call, context).await?;
    let dispatch = match &checked {
        std::borrow::Cow::Borrowed(_) => dispatch,
        std::borrow::Cow::Owned(rewritten) => plan(agent, rewritten).dispatch,
    };
    let result = call_through(agent, runtime, &checked, dispatch).await;
    crate::guard::tool::check_result(guards, &checked, result, context).await
}

/// Runs a planned call.
pub(crate) async fn dispatch_call<T, C, S>(
    toolset: &T,
    runtime: &ToolRuntime<C, S>,
    dispatch: Dispatch<'_, T::Call, C, S>,
) -> Result<ToolOutput, ToolCallError>
where
    T: Toolset<C, S>,
    C: 'static,
    S: 'static,
{
    match dispatch {
        Dispatch::Static(parsed) => toolset.call(parsed, runtime).await,
        Dispatch::Dyn(tool, args) => tool.call(args, runtime).await,
        Dispatch::Invalid(error) => Err(error),
        Dispatch::Decided(result) => result,
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_string()
    }
}

/// The tool message answering `call` with `result`.
pub(crate) fn tool_message(call: &ToolCall, result: &Result<ToolOutput, ToolCallError>) -> Message {
    let (content, is_error) = match result {
        Ok(output) => (output.content.clone(), false),
        Err(error) => (vec![ContentBlock::text(error.model_message())], true),
    };
    Message::Tool(ToolResultMessage {
        call_id: call.id.clone(),
        name: call.name.clone(),
        content,
        is_error,
    })
}
