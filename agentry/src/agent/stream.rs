//! Streaming a run: typed events as they happen, then the result.

use std::pin::Pin;
use std::task::{Context, Poll};

use super::event_queue::EventReceiver;
use futures::Stream;
use futures::future::BoxFuture;

use crate::run::{AgentEvent, Outcome, RunError, RunResult};

/// The events of a streamed run, ending in [`AgentEvent::Done`] or an `Err`.
///
/// The run makes progress only while the stream is polled; dropping the stream cancels the
/// run (its model and tool calls are futures owned by the stream).
pub struct AgentStream<'a, T, S> {
    run: Option<BoxFuture<'a, Result<Outcome<T, S>, RunError>>>,
    events: EventReceiver<T, S>,
    outcome: Option<Result<Outcome<T, S>, RunError>>,
}

impl<'a, T, S> AgentStream<'a, T, S> {
    pub(crate) fn new(
        run: BoxFuture<'a, Result<Outcome<T, S>, RunError>>,
        events: EventReceiver<T, S>,
    ) -> Self {
        AgentStream {
            run: Some(run),
            events,
            outcome: None,
        }
    }

    /// Drives the stream to its end, dropping the events, and returns the run's result (a
    /// pause for review is an [`Paused`](super::RunErrorKind::Paused) error here;
    /// use [`AgentStream::outcome`] to receive it).
    pub async fn result(self) -> Result<RunResult<T, S>, RunError> {
        self.outcome().await.and_then(super::run::finished)
    }

    /// Drives the stream to its end, dropping the events, and returns how the run ended:
    /// finished, or stopped for review.
    pub async fn outcome(mut self) -> Result<Outcome<T, S>, RunError> {
        use futures::StreamExt;
        let mut last = None;
        while let Some(item) = self.next().await {
            last = Some(item);
        }
        match last {
            Some(Ok(AgentEvent::Done(result))) => Ok(Outcome::Finished(*result)),
            Some(Ok(AgentEvent::Paused(pause))) => Ok(Outcome::Paused(pause)),
            Some(Err(error)) => Err(error),
            // The stream always ends in `Done`, `Paused` or an error; not reachable.
            _ => unreachable_end(),
        }
    }
}

#[cold]
fn unreachable_end<T, S>() -> Result<Outcome<T, S>, RunError> {
    Err(RunError::new(
        crate::run::RunErrorKind::Model(crate::model::ModelError::Incomplete(
            "the agent stream ended without a result".to_string(),
        )),
        Default::default(),
    ))
}

impl<T, S> Unpin for AgentStream<'_, T, S> {}

impl<T, S> Stream for AgentStream<'_, T, S> {
    type Item = Result<AgentEvent<T, S>, RunError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if let Some(event) = this.events.pop() {
                return Poll::Ready(Some(Ok(event)));
            }
            if let Some(run) = this.run.as_mut() {
                // What the run sends while polled here is read right after: no wake-up.
                this.events.unregister();
                match run.as_mut().poll(cx) {
                    Poll::Ready(outcome) => {
                        this.run = None;
                        this.outcome = Some(outcome);
                        // Drain what the run sent before it finished.
                        continue;
                    }
                    Poll::Pending => {
                        // Wait for the run, or for an event from elsewhere (a tool on another
                        // thread writing to its `StreamWriter`).
                        return match this.events.poll_pop(cx) {
                            Poll::Ready(event) => Poll::Ready(Some(Ok(event))),
                            Poll::Pending => Poll::Pending,
                        };
                    }
                }
            }
            return Poll::Ready(this.outcome.take().map(|outcome| match outcome {
                Ok(Outcome::Finished(result)) => Ok(AgentEvent::Done(Box::new(result))),
                Ok(Outcome::Paused(pause)) => Ok(AgentEvent::Paused(pause)),
                Err(error) => Err(error),
            }));
        }
    }
}
