//! The handler's side of the link: each step the agent loop asks for becomes a journaled
//! `ctx.run`, one at a time, in the order asked (the same order on every replay).
//!
//! A call of a tool that is not idempotent is preceded by a marker step that journals which
//! attempt started it. On a later attempt, a marker from an earlier attempt without the call's
//! result means the call was in flight when the earlier attempt died: it is not run again and
//! the model reads [`NOT_COMPLETED`](crate::agent::NOT_COMPLETED), as on SQLite.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::channel::{mpsc, oneshot};
use restate_sdk::prelude::*;
use serde_json::json;

use super::link::{StepKind, StepRequest, StepValue};
use super::publish::{Entry, Publisher, Ran};
use crate::message::ToolCall;

/// The retries of a failed model request, by the engine: after the last, the run fails.
fn model_retries() -> RunRetryPolicy {
    RunRetryPolicy::default()
        .initial_delay(Duration::from_millis(200))
        .max_attempts(4)
}

/// Serves the steps of one attempt of an invocation until the run drops its link.
/// `attempt` is this attempt's random id; `reruns` says whether a call in flight at a crash
/// runs again. Each step's entry carries the run's events up to it (see [`Publisher`]).
pub(crate) async fn serve(
    ctx: &ObjectContext<'_>,
    mut requests: mpsc::UnboundedReceiver<StepRequest>,
    attempt: u64,
    reruns: &(dyn Fn(&ToolCall) -> bool + Sync),
    events: &Arc<Publisher>,
) {
    while let Some(request) = requests.next().await {
        let ran = Ran::default();
        let body = |in_flight| {
            let (ran, events) = (ran.clone(), Arc::clone(events));
            move || execute(request.execute, in_flight, ran, events)
        };
        let entry = match request.kind {
            StepKind::Model => {
                let run = ctx.run(body(false));
                run.name("model").retry_policy(model_retries()).await
            }
            StepKind::Tool(call) => {
                let in_flight = if reruns(&call) {
                    false
                } else {
                    let marker = ctx.run(|| async move { Ok(attempt) });
                    match marker.name(format!("start {}", call.id)).await {
                        Ok(started) => started != attempt,
                        Err(e) => {
                            let _ = request.done.send(Err(e.to_string()));
                            continue;
                        }
                    }
                };
                let run = ctx.run(body(in_flight));
                run.name(format!("{} {}", call.name, call.id)).await
            }
        };
        let value = match entry {
            Ok(Json(entry)) => {
                events.stored(ran.get(), entry.events);
                Ok(entry.value)
            }
            Err(e) => Err(e.to_string()),
        };
        let _ = request.done.send(value);
    }
}

/// The body of a step's `ctx.run`: runs only when the step is not in the journal. Tells the
/// middleware to do the work and journals what it sends back, with the run's events so far;
/// a call found in flight is journaled as not completed without running.
async fn execute(
    execute: oneshot::Sender<oneshot::Sender<StepValue>>,
    in_flight: bool,
    ran: Ran,
    events: Arc<Publisher>,
) -> Result<Json<Entry>, HandlerError> {
    ran.set();
    let value = if in_flight {
        json!({ "not_completed": true })
    } else {
        let (result, result_rx) = oneshot::channel();
        execute
            .send(result)
            .map_err(|_| HandlerError::from(super::link::GONE))?;
        match result_rx.await {
            Ok(Ok(value)) => value,
            // A failed model request: retried by the engine (a new attempt of the step).
            Ok(Err(message)) => return Err(HandlerError::from(message)),
            Err(_) => return Err(HandlerError::from(super::link::GONE)),
        }
    };
    // The events the run sent up to the result are in the buffer: the run is polled before
    // the steps (see `RestateAgent::run`).
    let events = events.take();
    Ok(Json(Entry { value, events }))
}

/// Journals the events the run sent since its last step (up to a pause, or its end) as a
/// step of their own, and publishes them. Without a hub, nothing (no journal entry).
pub(crate) async fn flush(ctx: &ObjectContext<'_>, events: &Arc<Publisher>) -> HandlerResult<()> {
    if !events.publishes() {
        return Ok(());
    }
    let ran = Ran::default();
    let body = {
        let (ran, events) = (ran.clone(), Arc::clone(events));
        move || async move {
            ran.set();
            Ok(Json(events.take()))
        }
    };
    let journaled = ctx.run(body).name("events").await?.into_inner();
    events.stored(ran.get(), journaled);
    Ok(())
}
