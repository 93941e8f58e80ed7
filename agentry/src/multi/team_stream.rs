//! [`TeamStream`]: the events of a streamed team run.

use futures::Stream;
use futures::future::BoxFuture;
use tokio::sync::mpsc::UnboundedReceiver;

use super::handoff::{TeamError, TeamEvent, TeamResult};

/// The events of a streamed team run, ending in [`TeamEvent::Done`] or an `Err`. Dropping it
/// cancels the run.
pub struct TeamStream<'a, O> {
    pub(crate) run: Option<BoxFuture<'a, Result<TeamResult<O>, TeamError>>>,
    pub(crate) events: UnboundedReceiver<TeamEvent<O>>,
    pub(crate) outcome: Option<Result<TeamResult<O>, TeamError>>,
}

impl<O> TeamStream<'_, O> {
    /// Drives the stream to its end, dropping the events, and returns the result.
    pub async fn result(mut self) -> Result<TeamResult<O>, TeamError> {
        use futures::StreamExt;
        let mut last = None;
        while let Some(item) = self.next().await {
            last = Some(item);
        }
        match last {
            Some(Ok(TeamEvent::Done(result))) => Ok(*result),
            Some(Err(error)) => Err(error),
            // The stream ends with `Done` or an error: the run's own result.
            _ => unreachable!("a team stream ends with `Done` or an error"),
        }
    }
}

impl<O> Unpin for TeamStream<'_, O> {}

impl<O> Stream for TeamStream<'_, O> {
    type Item = Result<TeamEvent<O>, TeamError>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        let this = &mut *self;
        loop {
            if let Poll::Ready(Some(event)) = this.events.poll_recv(cx) {
                return Poll::Ready(Some(Ok(event)));
            }
            if let Some(run) = this.run.as_mut() {
                match run.as_mut().poll(cx) {
                    Poll::Ready(outcome) => {
                        this.run = None;
                        this.outcome = Some(outcome);
                        continue;
                    }
                    Poll::Pending => return Poll::Pending,
                }
            }
            return Poll::Ready(
                this.outcome
                    .take()
                    .map(|outcome| outcome.map(|result| TeamEvent::Done(Box::new(result)))),
            );
        }
    }
}
