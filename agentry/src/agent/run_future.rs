//! [`RunFuture`]: the future [`Agent::run`](super::Agent::run) returns.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use super::driver::Run;
use super::run::{RunOutcome, finished};

/// A run started with [`Agent::run`](super::Agent::run) or
/// [`run_with_state`](super::Agent::run_with_state): await it for the run's result.
///
/// Nothing happens until it is polled; dropping it cancels the run and its in-flight model and
/// tool calls. It is `Send`, so it can be spawned on a multi-threaded runtime. The loop is
/// boxed inside it (one allocation per run), so moving it copies a few words.
///
/// ```
/// use agentry::agent::{AgentBuilder, NoTools, RunFuture};
/// use agentry::testing::{ScriptedModel, Turn};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("Paris.")]), NoTools)
///     .build();
/// let run: RunFuture<'_, String, ()> = agent.run("Capital of France?", ());
/// assert_eq!(run.await.unwrap().output, "Paris.");
/// # });
/// ```
#[must_use = "a run does nothing until it is awaited"]
pub struct RunFuture<'a, T, S> {
    run: Run<'a, T, S>,
}

impl<'a, T, S> RunFuture<'a, T, S> {
    pub(crate) fn new(run: Run<'a, T, S>) -> Self {
        RunFuture { run }
    }
}

impl<T, S> Future for RunFuture<'_, T, S> {
    type Output = RunOutcome<T, S>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let end = ready!(Pin::new(&mut self.run).poll(cx));
        Poll::Ready(end.and_then(finished))
    }
}

impl<T, S> std::fmt::Debug for RunFuture<'_, T, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunFuture").finish_non_exhaustive()
    }
}
