//! The end of a run: with its final answer, or as a hook decided.

use std::sync::Arc;

use futures::future::{self, BoxFuture};

use super::builder::Agent;
use super::core::RunCore;
use super::driver::RunEnd;
use super::history;
use super::hooks;
use super::record::Record;
use super::toolset::Toolset;
use crate::middleware::chain::HookKind;
use crate::output::OutputSpec;
use crate::run::Outcome;
use crate::run::{RunError, RunErrorKind};
use crate::run::{RunResult, StopReason};

/// Ends the run with its final answer (the middleware's `after_agent` first).
pub(super) async fn finish<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    context: &C,
    mut record: Record,
    mut state: Arc<S>,
    output: O::Output,
    stop_reason: StopReason,
) -> Result<Outcome<O::Output, S>, RunError>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    if !agent.parts.middleware.runs(HookKind::AfterAgent) {
        return finish_plain(record, state, output, stop_reason);
    }
    // The final-answer tool's call (the only call left unanswered) gets its result.
    history::answer_pending(&mut record.messages, history::FINAL_ANSWER_RECEIVED, false);
    if let Err(kind) = Box::pin(hooks::after_agent(agent, &mut record, context, &mut state)).await {
        return Err(record.fail(kind));
    }
    conclude(record, state, output, stop_reason)
}

/// [`finish`] for an agent without middleware: nothing to await, so the run's future does not
/// hold `finish`'s state.
pub(super) fn finish_plain<T, S>(
    mut record: Record,
    state: Arc<S>,
    output: T,
    stop_reason: StopReason,
) -> Result<Outcome<T, S>, RunError> {
    history::answer_pending(&mut record.messages, history::FINAL_ANSWER_RECEIVED, false);
    conclude(record, state, output, stop_reason)
}

/// The run's result, the state going back to the caller.
fn conclude<T, S>(
    record: Record,
    state: Arc<S>,
    output: T,
    stop_reason: StopReason,
) -> Result<Outcome<T, S>, RunError> {
    match Arc::try_unwrap(state) {
        Ok(state) => {
            tracing::debug!(
                ?stop_reason,
                requests = record.usage.requests,
                steps = record.steps.len(),
                "run finished"
            );
            Ok(Outcome::Finished(RunResult {
                output,
                state,
                messages: record.messages,
                usage: record.usage,
                request_usage: record.request_usage,
                steps: record.steps,
                stop_reason,
            }))
        }
        Err(_) => Err(record.fail(RunErrorKind::StateInUse)),
    }
}

/// Ends a run that has middleware or output guardrails with its output: through the output
/// guardrails, then the `after_agent` hooks. (A run with neither ends at once, with
/// `finish_plain`, not through this future.) Boxed, like [`end_with`]: only these runs pay
/// for their end's future, not every run's loop.
pub(super) fn finish_run<'a, T, O, C, S>(
    core: Box<RunCore<'a, T, O, C, S>>,
    output: O::Output,
    stop_reason: StopReason,
) -> BoxFuture<'a, RunEnd<O::Output, S>>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    Box::pin(async move {
        let guards = &core.agent.parts.guards;
        let output = if guards.has_output() {
            let checked = Box::pin(crate::guard::output::check_output(
                guards,
                output,
                &*core.context,
            ))
            .await;
            match checked {
                Ok(output) => output,
                Err(kind) => return Err(core.fail(kind)),
            }
        } else {
            output
        };
        finish(
            core.agent,
            &core.context,
            core.record,
            core.state,
            output,
            stop_reason,
        )
        .await
    })
}

/// Ends the run as a hook decided.
pub(super) fn end_with<'a, T, O, C, S>(
    core: Box<RunCore<'a, T, O, C, S>>,
    end: hooks::End,
) -> BoxFuture<'a, RunEnd<O::Output, S>>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    // The answer is parsed before the future is made, which then holds only what `finish`
    // awaits (it held the answer, the run's record and its end twice: 1,088 bytes, over
    // glibc's per-thread cache).
    let mut core = core;
    let (output, stop_reason) = match hooks::ended(&core.agent.parts.output, &mut core.record, end)
    {
        Ok(ended) => ended,
        Err(kind) => return Box::pin(future::ready(Err(core.fail(kind)))),
    };
    if !core.runs(HookKind::AfterAgent) {
        return Box::pin(future::ready(finish_plain(
            core.record,
            core.state,
            output,
            stop_reason,
        )));
    }
    Box::pin(async move {
        finish(
            core.agent,
            &core.context,
            core.record,
            core.state,
            output,
            stop_reason,
        )
        .await
    })
}
