//! Running an agent: [`Agent::run`], [`Agent::stream`], [`Agent::batch`].

use futures::StreamExt;
use futures::future::BoxFuture;

use super::batch_input::BatchInput;
use super::builder::Agent;
use super::driver::{Sinks, drive};
use super::resume::Start;
use super::run_future::RunFuture;
use super::stream::AgentStream;
use super::toolset::Toolset;
use crate::agent::{IntoContext, IntoInput};
use crate::output::OutputSpec;
use crate::run::Outcome;
use crate::run::RunResult;
use crate::run::{RunError, RunErrorKind};

/// The outcome of a run.
pub(crate) type RunOutcome<T, S> = Result<RunResult<T, S>, RunError>;

impl<T, O, C, S> Agent<T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    /// Runs the loop — model, tool calls, results, model — until a final answer, starting
    /// from `S::default()`.
    ///
    /// `input` is a user message (`&str`, `String`) or an [`Input`](super::Input) with prior
    /// messages; `context` is shared read-only with every tool (`Context<C>`). Dropping the
    /// returned future cancels the run and its in-flight model and tool calls.
    pub fn run(
        &self,
        input: impl IntoInput,
        context: impl IntoContext<C>,
    ) -> RunFuture<'_, O::Output, S>
    where
        S: Default,
    {
        self.run_with_state(input, context, S::default())
    }

    /// [`Agent::run`] starting from `state`.
    pub fn run_with_state(
        &self,
        input: impl IntoInput,
        context: impl IntoContext<C>,
        state: S,
    ) -> RunFuture<'_, O::Output, S> {
        let start = Start::Fresh {
            input: input.into(),
            state,
        };
        RunFuture::new(drive(self, start, context.into_context(), None))
    }

    /// Runs like [`Agent::run`] and streams typed events: turn starts, text, reasoning and
    /// tool-call argument deltas, tool results, tools' custom events, usage, and finally
    /// [`AgentEvent::Done`](super::AgentEvent::Done); then
    /// [`AgentStream::result`] returns the same result `run` returns.
    pub fn stream(
        &self,
        input: impl IntoInput,
        context: impl IntoContext<C>,
    ) -> AgentStream<'_, O::Output, S, T::Event>
    where
        S: Default,
    {
        self.stream_with_state(input, context, S::default())
    }

    /// [`Agent::stream`] starting from `state`.
    pub fn stream_with_state(
        &self,
        input: impl IntoInput,
        context: impl IntoContext<C>,
        state: S,
    ) -> AgentStream<'_, O::Output, S, T::Event> {
        let (sinks, events) = Sinks::new();
        let start = Start::Fresh {
            input: input.into(),
            state,
        };
        let run = drive(self, start, context.into_context(), Some(sinks));
        AgentStream::new(Box::pin(run), events)
    }

    /// Runs many inputs, at most `concurrency` at once (at least one), each with its own
    /// context (`(input, context)`, or the input alone for an agent without one: see
    /// [`BatchInput`]); results come back in input order.
    ///
    /// The inputs are read when this is called; the returned future runs them.
    pub fn batch(
        &self,
        inputs: impl IntoIterator<Item: BatchInput<C>>,
        concurrency: usize,
    ) -> BoxFuture<'_, Vec<RunOutcome<O::Output, S>>>
    where
        S: Default,
    {
        // A boxed future rather than an `async fn`: its type does not name `inputs`, so an
        // input that is not one is reported once, at the call.
        let inputs: Vec<_> = inputs.into_iter().map(BatchInput::into_parts).collect();
        Box::pin(
            futures::stream::iter(inputs)
                .map(|(input, context)| self.run(input, context))
                .buffered(concurrency.max(1))
                .collect(),
        )
    }
}

/// The result of a run started with `run`: a pause is an error there (see `run_or_pause`).
pub(crate) fn finished<T, S>(outcome: Outcome<T, S>) -> RunOutcome<T, S> {
    match outcome {
        Outcome::Finished(result) => Ok(result),
        Outcome::Paused(pause) => {
            let tools = pause
                .calls
                .iter()
                .filter(|c| c.review.is_some() || c.question.is_some())
                .map(|c| c.call.name.clone())
                .collect();
            Err(RunError::new(
                RunErrorKind::Paused { tools },
                pause.partial(),
            ))
        }
    }
}
