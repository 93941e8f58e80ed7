//! [`RestateAgent`]: the bodies of a thread's handlers on a Restate virtual object.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::{Either, select};
use restate_sdk::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tracing::Instrument;

use super::events::RunEvent;
use super::hub::EventHub;
use super::link::StepLink;
use super::middleware::Journaled;
use super::publish::Publisher;
use super::steps;
use crate::agent::IntoContext;
use crate::agent::{Agent, AgentStream, Input, ThreadState, Toolset};
use crate::message::Message;
use crate::middleware::{Decision, ReviewRequest};
use crate::output::OutputSpec;
use crate::run::{AgentEvent, Outcome, RunError, RunResult};
use crate::usage::Usage;

/// The object's state key of the thread: messages, typed state and usage.
const THREAD: &str = "thread";
/// The object's state key of the review a run waits for.
const REVIEW: &str = "review";

/// A thread as the virtual object keeps it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SavedThread {
    /// The messages, oldest first, without the system message.
    pub messages: Vec<Message>,
    /// The typed state, serialized.
    pub state: Value,
    /// Tokens and requests spent by every run of the thread.
    pub usage: Usage,
    /// The runs that finished.
    pub runs: u64,
}

/// What a finished run answers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunReply {
    /// The typed output, serialized.
    pub output: Value,
    /// The typed state after the run, serialized.
    pub state: Value,
    /// What this run spent.
    pub usage: Usage,
    /// The thread's message count after the run.
    pub messages: usize,
}

/// A review a run waits for, as [`RestateAgent::pending`] lists it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PendingReview {
    /// The awakeable the run is suspended on; [`RestateAgent::decide`] resolves it, and so
    /// does the engine's own `POST /restate/awakeables/{id}/resolve`.
    pub awakeable: String,
    /// The calls that need a decision.
    pub reviews: Vec<ReviewRequest>,
}

/// Decisions, by call id.
pub type Decisions = BTreeMap<String, Decision>;

/// An agent whose runs are journaled by Restate: the handler bodies of a virtual object
/// keyed by the thread id (see the [module docs](super) for the service to declare).
pub struct RestateAgent<T, O, C, S> {
    agent: Agent<T, O, C, S>,
    context: Arc<C>,
    review_timeout: Option<Duration>,
    hub: Option<EventHub>,
}

impl<T, O, C, S> std::fmt::Debug for RestateAgent<T, O, C, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestateAgent")
            .field("agent", &self.agent.name())
            .field("review_timeout", &self.review_timeout)
            .finish_non_exhaustive()
    }
}

fn terminal(what: &str, error: impl std::fmt::Display) -> HandlerError {
    TerminalError::new(format!("{what}: {error}")).into()
}

impl<T, O, C, S> RestateAgent<T, O, C, S>
where
    T: Toolset<C, S>,
    T::Event: serde::Serialize,
    O: OutputSpec,
    O::Output: Serialize,
    C: Send + Sync + 'static,
    S: ThreadState + Default,
{
    /// Runs `agent` on Restate, its tools given `context`. Adds the journaling middleware,
    /// innermost: model requests and tool calls are journaled as the agent's other middleware
    /// sees them.
    pub fn new(mut agent: Agent<T, O, C, S>, context: impl IntoContext<C>) -> Self {
        agent.parts.middleware.push(Arc::new(Journaled));
        RestateAgent {
            agent,
            context: context.into_context(),
            review_timeout: None,
            hub: None,
        }
    }

    /// Publishes each run's events to `hub`, by invocation id, for callers to follow (see
    /// [`EventHub`]): the events are journaled with the steps, so after a crash the engine's
    /// replay publishes them again with the same numbers, and the hub drops the repeats.
    pub fn events(mut self, hub: EventHub) -> Self {
        self.hub = Some(hub);
        self
    }

    /// A review not decided within `timeout` (an engine timer: it survives restarts) rejects
    /// the reviewed calls; the model reads that they were rejected.
    pub fn review_timeout(mut self, timeout: Duration) -> Self {
        self.review_timeout = Some(timeout);
        self
    }

    /// The agent.
    pub fn agent(&self) -> &Agent<T, O, C, S> {
        &self.agent
    }

    /// The body of the exclusive `run` handler: runs the agent on the thread `ctx.key()` with
    /// `input`, from the thread's messages and state, and saves them when the run finishes.
    /// Each model request and tool call is a journaled step; a pause for review suspends the
    /// invocation on an awakeable until [`RestateAgent::decide`].
    ///
    /// A failed run is a terminal error (the engine does not retry it); the thread stays as
    /// it was.
    pub async fn run(&self, ctx: &ObjectContext<'_>, input: String) -> HandlerResult<RunReply> {
        let saved = ctx
            .get::<Json<SavedThread>>(THREAD)
            .await?
            .map(Json::into_inner)
            .unwrap_or_default();
        let state: S = if saved.runs == 0 {
            S::default()
        } else {
            serde_json::from_value(saved.state.clone())
                .map_err(|e| terminal("the thread's state does not decode", e))?
        };
        let attempt: u64 = crate::random::u64();
        let (link, requests) = StepLink::new();
        let events = Publisher::new(self.hub.clone(), ctx.invocation_id());
        let reruns = |call: &crate::message::ToolCall| self.agent.reruns_after_crash(call);
        let span = super::trace::invocation_span(ctx.invocation_id(), ctx.headers());
        let run = link.scope(self.drive(ctx, saved.messages.clone(), input, state, &events));
        let run = crate::telemetry::in_conversation(ctx.key(), run).instrument(span);
        let serve = steps::serve(ctx, requests, attempt, &reruns, &events);
        // The run first: the events it sends are buffered before a step's body reads them.
        let result = match select(std::pin::pin!(run), std::pin::pin!(serve)).await {
            Either::Left((result, _)) => result?,
            Either::Right(((), _)) => return Err(terminal("the run", super::link::GONE)),
        };
        steps::flush(ctx, &events).await?;
        events.close();
        let messages: Vec<Message> = result
            .messages
            .into_iter()
            .filter(|m| !matches!(m, Message::System { .. }))
            .collect();
        let output = serde_json::to_value(&result.output)
            .map_err(|e| terminal("the output does not serialize", e))?;
        let state = serde_json::to_value(&result.state)
            .map_err(|e| terminal("the state does not serialize", e))?;
        let reply = RunReply {
            output,
            state: state.clone(),
            usage: result.usage,
            messages: messages.len(),
        };
        ctx.set(
            THREAD,
            Json(SavedThread {
                messages,
                state,
                usage: saved.usage + result.usage,
                runs: saved.runs + 1,
            }),
        );
        Ok(reply)
    }

    /// The run, its pauses answered through awakeables.
    async fn drive(
        &self,
        ctx: &ObjectContext<'_>,
        history: Vec<Message>,
        input: String,
        state: S,
        events: &Arc<Publisher>,
    ) -> HandlerResult<RunResult<O::Output, S>> {
        let input = Input::with_history(history, input);
        let context = Arc::clone(&self.context);
        let stream = self.agent.stream_with_state(input, context, state);
        let mut outcome = gather(stream, events).await;
        loop {
            let pause = match outcome {
                Ok(Outcome::Finished(result)) => return Ok(result),
                Ok(Outcome::Paused(pause)) => pause,
                Err(error) => {
                    steps::flush(ctx, events).await?;
                    events.close();
                    return Err(terminal("the run failed", error));
                }
            };
            // The events up to the pause reach the caller while the run waits.
            steps::flush(ctx, events).await?;
            let reviews: Vec<ReviewRequest> = pause.reviews().cloned().collect();
            let (awakeable, decided) = ctx.awakeable::<Json<Decisions>>();
            ctx.set(
                REVIEW,
                Json(PendingReview {
                    awakeable,
                    reviews: reviews.clone(),
                }),
            );
            let decisions = match self.review_timeout {
                None => decided.await?.into_inner(),
                Some(timeout) => {
                    let why = "the review timed out";
                    let rejected: Decisions = reviews
                        .iter()
                        .map(|r| {
                            (
                                r.call_id.clone(),
                                Decision::Reject {
                                    message: why.into(),
                                },
                            )
                        })
                        .collect();
                    // The engine's select: it journals which of the two completed first.
                    restate_sdk::select! {
                        decided = decided => decided?.into_inner(),
                        slept = ctx.sleep(timeout) => {
                            slept?;
                            rejected
                        },
                    }
                }
            };
            ctx.clear(REVIEW);
            let context = Arc::clone(&self.context);
            let stream = self.agent.resume_stream(*pause, decisions, context);
            outcome = gather(stream, events).await;
        }
    }

    /// The body of the shared `pending` handler: the review the thread's run waits for.
    pub async fn pending(ctx: &SharedObjectContext<'_>) -> HandlerResult<Option<PendingReview>> {
        Ok(ctx
            .get::<Json<PendingReview>>(REVIEW)
            .await?
            .map(Json::into_inner))
    }

    /// The body of the shared `decide` handler: resumes the run waiting for review with
    /// `decisions`, from any process. `false` when no run waits.
    pub async fn decide(
        ctx: &SharedObjectContext<'_>,
        decisions: Decisions,
    ) -> HandlerResult<bool> {
        let Some(pending) = Self::pending(ctx).await? else {
            return Ok(false);
        };
        ctx.resolve_awakeable(&pending.awakeable, Json(decisions));
        Ok(true)
    }

    /// The body of the shared `thread` handler: the thread as saved after its last run.
    pub async fn thread(ctx: &SharedObjectContext<'_>) -> HandlerResult<SavedThread> {
        Ok(ctx
            .get::<Json<SavedThread>>(THREAD)
            .await?
            .map(Json::into_inner)
            .unwrap_or_default())
    }
}

/// Reads a streamed run to its end, handing its events to `events`; how it ended.
async fn gather<T, S, E: Serialize>(
    mut stream: AgentStream<'_, T, S, E>,
    events: &Publisher,
) -> Result<Outcome<T, S>, RunError> {
    let mut end = None;
    while let Some(item) = stream.next().await {
        match item {
            Ok(event) => {
                if let Some(event) = RunEvent::from_event(&event) {
                    events.push(event);
                }
                if let AgentEvent::Paused(pause) = event {
                    end = Some(Ok(Outcome::Paused(pause)));
                }
            }
            Err(error) => {
                events.push(RunEvent::Failed {
                    message: error.to_string(),
                });
                end = Some(Err(error));
            }
        }
    }
    match end {
        Some(end) => end,
        None => stream.outcome().await,
    }
}
