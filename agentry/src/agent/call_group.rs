//! A group of tool calls that run together: their futures, and awaiting them at most
//! `max_parallel_tools` at once, each result saved as it completes in a thread.

use std::future::Future;

use futures::{FutureExt, StreamExt};

use super::builder::Agent;
use super::call::{Planned, run_call, tool_message};
use super::core::{CallResult, RunCore};
use super::driver::save;
use super::thread::{Journal, SavePoint};
use super::toolset::Toolset;
use crate::message::{Message, ToolCall};
use crate::output::OutputSpec;
use crate::tool::ToolRuntime;

/// The futures of a group of calls that run together, with their `return_direct` flags
/// pushed to `flags`.
pub(super) fn group_runs<'r, 'p: 'r, T, O, C, S>(
    agent: &'r Agent<T, O, C, S>,
    base: &'r ToolRuntime<C, S>,
    group: impl Iterator<Item = Planned<'p, T::Call, C, S>>,
    calls: &'r [ToolCall],
    flags: &mut Vec<bool>,
) -> Vec<impl Future<Output = CallResult<S>> + 'r>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    // A loop, not `map`: a closure here trips the `Send` check of the boxed run.
    let mut runs = Vec::with_capacity(calls.len());
    flags.reserve(calls.len());
    for (p, call) in group.zip(calls) {
        flags.push(p.return_direct);
        runs.push(run_call(agent, base, call, p.dispatch, p.timeout));
    }
    runs
}

/// Awaits a group's calls, at most `max_parallel_tools` at once, and returns their results in
/// the calls' order. In a thread, each result is saved as its call completes (LangGraph's
/// `put_writes`): a crash later in the group does not count finished calls as lost. A call
/// that queued state updates is saved with the group, when its updates are applied.
pub(super) async fn await_group<'j, T, O, C, S, F>(
    runs: Vec<F>,
    core: &mut RunCore<'_, T, O, C, S>,
    journal: Option<&mut (dyn Journal<S> + Send + 'j)>,
    calls: &[ToolCall],
) -> Vec<CallResult<S>>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
    F: Future<Output = CallResult<S>>,
{
    let max = core.agent.parts.max_parallel_tools;
    let Some(journal) = journal else {
        return futures::stream::iter(runs).buffered(max).collect().await;
    };
    let mut results: Vec<Option<CallResult<S>>> = (0..runs.len()).map(|_| None).collect();
    let mut done = futures::stream::iter(
        runs.into_iter()
            .enumerate()
            .map(|(i, run)| run.map(move |r| (i, r))),
    )
    .buffer_unordered(max);
    while let Some((index, result)) = done.next().await {
        if result.1.is_empty()
            && let Message::Tool(message) = tool_message(&calls[index], &result.0)
        {
            core.record.completed.push(message);
            if let Err(kind) = save(journal, SavePoint::CallDone, core).await {
                // The call's result stands; only its early save failed, and the group's save
                // will try again.
                tracing::warn!(error = %kind, "a tool result could not be saved as it completed");
            }
        }
        results[index] = Some(result);
    }
    // The transcript takes the group's results together, in the model's order.
    core.record.completed.clear();
    results.into_iter().flatten().collect()
}
