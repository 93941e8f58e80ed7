//! [`TeamStream`]: the events of a streamed team run.

use std::marker::PhantomData;

use futures::Stream;
use futures::future::BoxFuture;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::handoff::{TeamError, TeamEvent, TeamResult};

/// The events of a streamed team run, ending in [`TeamEvent::Done`] or an `Err`. Dropping it
/// cancels the run.
///
/// The finished run's [`TeamResult`] is kept by the stream, not moved into `Done`: read the
/// events to the end and then call [`result`](TeamStream::result) (or call it at any time; it
/// drives what is left of the run, dropping the events).
///
/// ```
/// use agentry::agent::{AgentBuilder, NoTools};
/// use agentry::multi::{Team, TeamEvent};
/// use agentry::testing::{ScriptedModel, Turn};
/// use futures::StreamExt;
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let model = ScriptedModel::new([Turn::text("Hi!")]);
/// let team = Team::<String, ()>::builder()
///     .agent("greeter", "Greets.", AgentBuilder::<_, _, (), ()>::new(model, NoTools))
///     .build()
///     .unwrap();
/// let mut stream = team.stream("Hello", ());
/// let mut answered = None;
/// while let Some(event) = stream.next().await {
///     if let TeamEvent::Done { agent, .. } = event.unwrap() {
///         answered = Some(agent);
///     }
/// }
/// assert_eq!(answered.as_deref(), Some("greeter"));
/// assert_eq!(stream.result().await.unwrap().output, "Hi!");
/// # });
/// ```
pub struct TeamStream<'a, O> {
    run: Option<BoxFuture<'a, Result<TeamResult<O>, TeamError>>>,
    events: UnboundedReceiver<TeamEvent<O>>,
    end: End<O>,
}

/// How far the stream got past the run's end.
enum End<O> {
    /// The run has not ended.
    Running,
    /// The run ended; its last event is not yet sent.
    Pending(Result<TeamResult<O>, TeamError>),
    /// `Done` was sent; the result is held for [`TeamStream::result`].
    Finished(Box<TeamResult<O>>),
    /// The error was sent as the last event.
    Taken,
}

impl<'a, O> TeamStream<'a, O> {
    /// The stream of the run `run` makes, given where to send its events.
    pub(crate) fn new(
        run: impl FnOnce(
            UnboundedSender<TeamEvent<O>>,
        ) -> BoxFuture<'a, Result<TeamResult<O>, TeamError>>,
    ) -> Self {
        let (sender, events) = unbounded_channel();
        TeamStream {
            run: Some(run(sender)),
            events,
            end: End::Running,
        }
    }

    /// Drives the stream to its end, dropping the events, and returns the result. After the
    /// events were read to the end, returns the result the stream holds; a failed run's error
    /// was the last event, and here is [`TeamError::ErrorTaken`].
    pub async fn result(mut self) -> Result<TeamResult<O>, TeamError> {
        use futures::StreamExt;
        let mut last = None;
        while let Some(item) = self.next().await {
            last = Some(item);
        }
        match (std::mem::replace(&mut self.end, End::Taken), last) {
            (End::Finished(result), _) => Ok(*result),
            (_, Some(Err(error))) => Err(error),
            _ => Err(TeamError::ErrorTaken),
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
                        this.end = End::Pending(outcome);
                        continue;
                    }
                    Poll::Pending => return Poll::Pending,
                }
            }
            return Poll::Ready(match std::mem::replace(&mut this.end, End::Taken) {
                End::Pending(Ok(result)) => {
                    let event = TeamEvent::Done {
                        agent: result.agent.clone(),
                        usage: result.usage,
                        output: PhantomData,
                    };
                    this.end = End::Finished(Box::new(result));
                    Some(Ok(event))
                }
                End::Pending(Err(error)) => Some(Err(error)),
                held @ End::Finished(_) => {
                    this.end = held;
                    None
                }
                End::Running | End::Taken => None,
            });
        }
    }
}
