//! Streaming a run: typed events as they happen, then the result.

use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::event_queue::EventReceiver;
use futures::Stream;
use futures::future::BoxFuture;

use crate::run::{AgentEvent, Outcome, RunError, RunResult};

/// The events of a streamed run, ending in [`AgentEvent::Done`],
/// [`AgentEvent::Paused`] or an `Err`. `E` is the type of the tools' custom events (the
/// agent's `#[agent(events = E)]`, JSON by default).
///
/// The run makes progress only while the stream is polled; dropping the stream cancels the
/// run (its model and tool calls are futures owned by the stream).
///
/// The finished run's [`RunResult`] is kept by the stream, not moved into `Done`: read the
/// events to the end and then call [`result`](AgentStream::result) (or call it at any time; it
/// drives what is left of the run, dropping the events).
///
/// ```
/// use agentry::agent::{AgentBuilder, AgentEvent, NoTools};
/// use agentry::testing::{ScriptedModel, Turn};
/// use futures::StreamExt;
///
/// # futures::executor::block_on(async {
/// let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("Hi!")]), NoTools)
///     .build();
/// let mut stream = agent.stream("Hello", ());
/// let mut text = String::new();
/// while let Some(event) = stream.next().await {
///     match event.unwrap() {
///         AgentEvent::TextDelta { text: delta } => text.push_str(&delta),
///         AgentEvent::Done { usage, .. } => assert_eq!(usage.requests, 1),
///         _ => {}
///     }
/// }
/// let run = stream.result().await.unwrap();
/// assert_eq!((text.as_str(), run.output.as_str()), ("Hi!", "Hi!"));
/// # });
/// ```
pub struct AgentStream<'a, T, S, E = serde_json::Value> {
    run: Option<BoxFuture<'a, Result<Outcome<T, S>, RunError>>>,
    events: EventReceiver<T, S, E>,
    end: End<T, S>,
}

/// How far the stream got past the run's end.
enum End<T, S> {
    /// The run has not ended (or its end is not yet reported).
    Running,
    /// The run ended; its last event is not yet sent.
    Pending(Result<Outcome<T, S>, RunError>),
    /// `Done` was sent; the result is held for `result`/`outcome`.
    Finished(Box<RunResult<T, S>>),
    /// The last event (`Paused` or an error) was sent and carried the run's end away.
    Taken,
}

impl<'a, T, S, E> AgentStream<'a, T, S, E> {
    pub(crate) fn new(
        run: BoxFuture<'a, Result<Outcome<T, S>, RunError>>,
        events: EventReceiver<T, S, E>,
    ) -> Self {
        AgentStream {
            run: Some(run),
            events,
            end: End::Running,
        }
    }

    /// Drives the stream to its end, dropping the events, and returns the run's result (a
    /// pause for review is an [`Paused`](super::RunErrorKind::Paused) error here;
    /// use [`AgentStream::outcome`] to receive it). After the events were read to the end,
    /// returns the result the stream holds.
    pub async fn result(self) -> Result<RunResult<T, S>, RunError> {
        self.outcome().await.and_then(super::run::finished)
    }

    /// Drives the stream to its end, dropping the events, and returns how the run ended:
    /// finished, or stopped for review. After the events were read to the end, a finished
    /// run's result is still returned; a pause or an error was already given by the last
    /// event, and is an error here.
    pub async fn outcome(mut self) -> Result<Outcome<T, S>, RunError> {
        use futures::StreamExt;
        let mut last = None;
        while let Some(item) = self.next().await {
            last = Some(item);
        }
        match (std::mem::replace(&mut self.end, End::Taken), last) {
            (End::Finished(result), _) => Ok(Outcome::Finished(*result)),
            (_, Some(Ok(AgentEvent::Paused(pause)))) => Ok(Outcome::Paused(pause)),
            (_, Some(Err(error))) => Err(error),
            // The pause or error was the last event the caller read.
            _ => already_taken(),
        }
    }
}

#[cold]
fn already_taken<T, S>() -> Result<Outcome<T, S>, RunError> {
    Err(RunError::new(
        crate::run::RunErrorKind::Model(crate::model::ModelError::Incomplete(
            "the agent stream's last event (a pause or an error) was already read".to_string(),
        )),
        Default::default(),
    ))
}

impl<T, S, E> Unpin for AgentStream<'_, T, S, E> {}

impl<T, S, E> Stream for AgentStream<'_, T, S, E> {
    type Item = Result<AgentEvent<T, S, E>, RunError>;

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
                        this.end = End::Pending(outcome);
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
            return Poll::Ready(match std::mem::replace(&mut this.end, End::Taken) {
                End::Pending(Ok(Outcome::Finished(result))) => {
                    let event = AgentEvent::Done {
                        usage: result.usage,
                        stop_reason: result.stop_reason.clone(),
                        output: PhantomData,
                    };
                    this.end = End::Finished(Box::new(result));
                    Some(Ok(event))
                }
                End::Pending(Ok(Outcome::Paused(pause))) => Some(Ok(AgentEvent::Paused(pause))),
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
