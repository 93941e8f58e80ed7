//! [`OutcomeFuture`]: the future of a run that may stop for review
//! ([`Agent::run_or_pause`](super::Agent::run_or_pause), [`Agent::resume`](super::Agent::resume)).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::future::BoxFuture;

use super::driver::{Run, RunEnd};
use crate::run::{Outcome, RunError};

/// A run started with [`Agent::run_or_pause`](super::Agent::run_or_pause) or
/// [`Agent::resume`](super::Agent::resume): await it for the run's [`Outcome`], finished or
/// paused again.
///
/// Nothing happens until it is polled; dropping it cancels the run. It is `Send`. A named type
/// rather than `impl Future`: the future does not name the method's arguments, so a wrong
/// argument (a decision written as text, an input that is not one) is one compile error at
/// the call, not one more at each `.await`.
///
/// ```
/// use agentry::agent::{AgentBuilder, NoTools, Outcome, OutcomeFuture};
/// use agentry::testing::{ScriptedModel, Turn};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("Paris.")]), NoTools)
///     .build();
/// let run: OutcomeFuture<'_, String, ()> = agent.run_or_pause("Capital of France?", ());
/// let Outcome::Finished(result) = run.await.unwrap() else { unreachable!() };
/// assert_eq!(result.output, "Paris.");
/// # });
/// ```
#[must_use = "a run does nothing until it is awaited"]
pub struct OutcomeFuture<'a, T, S> {
    inner: Inner<'a, T, S>,
}

enum Inner<'a, T, S> {
    /// Refused before anything ran (a resume whose pause or decisions do not fit).
    Ready(Option<RunEnd<T, S>>),
    /// The run's own future.
    Run(Run<'a, T, S>),
    /// The run behind a write it waits for first (a pause marked used).
    Boxed(BoxFuture<'a, RunEnd<T, S>>),
}

impl<'a, T, S> OutcomeFuture<'a, T, S> {
    pub(crate) fn run(run: Run<'a, T, S>) -> Self {
        OutcomeFuture {
            inner: Inner::Run(run),
        }
    }

    pub(crate) fn failed(error: RunError) -> Self {
        OutcomeFuture {
            inner: Inner::Ready(Some(Err(error))),
        }
    }

    pub(crate) fn boxed(run: BoxFuture<'a, RunEnd<T, S>>) -> Self {
        OutcomeFuture {
            inner: Inner::Boxed(run),
        }
    }
}

// Nothing in it is pinned in place: the run's futures are boxed or `Unpin`, and a finished
// run's outcome is only ever moved out.
impl<T, S> Unpin for OutcomeFuture<'_, T, S> {}

impl<T, S> Future for OutcomeFuture<'_, T, S> {
    type Output = Result<Outcome<T, S>, RunError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.inner {
            Inner::Ready(end) => match end.take() {
                Some(end) => Poll::Ready(end),
                None => panic!("`OutcomeFuture` polled after it completed"),
            },
            Inner::Run(run) => Pin::new(run).poll(cx),
            Inner::Boxed(run) => run.as_mut().poll(cx),
        }
    }
}

impl<T, S> std::fmt::Debug for OutcomeFuture<'_, T, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutcomeFuture").finish_non_exhaustive()
    }
}
