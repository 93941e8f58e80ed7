//! A team's run streamed to a client, like an agent's ([`run`](super::run)): each agent's
//! events, the handoffs, then the answer; dropped with the response body.

use std::sync::Arc;

use futures::StreamExt;
use serde::Serialize;
use serde_json::json;

use super::event::{Encoder, Event};
use super::request::RunRequest;
use super::run::{
    CancelOnDrop, RunBody, body, encode, json, record_denied, rejected_calls, resumed,
};
use super::team::TeamInner;
use super::threads::RunSlot;
use crate::agent::AgentEvent;
use crate::multi::{TeamError, TeamEvent, TeamThreadState};

/// Streams the team's run of `input` on thread `thread_id`, encoded by `encoder`.
pub(crate) fn stream<O, C, E>(
    inner: Arc<TeamInner<O, C>>,
    slot: RunSlot,
    thread_id: String,
    context: Arc<C>,
    request: RunRequest,
    mut encoder: E,
    keep_alive: std::time::Duration,
) -> RunBody
where
    O: Serialize + Send + 'static,
    C: Send + Sync + 'static,
    E: Encoder,
{
    body(keep_alive, move |frames| async move {
        let mut guard = {
            let inner = Arc::clone(&inner);
            CancelOnDrop::new(thread_id.clone(), slot, move |id| async move {
                inner.team.thread(id).cancel().await.map(|()| true)
            })
        };
        let thread = inner.team.thread(thread_id.as_str());
        let mut out = Vec::new();
        let agent = match thread.load().await {
            Ok(Some(saved)) => saved.agent,
            Ok(None) => inner.team.agents().next().unwrap_or_default().to_owned(),
            Err(error) => {
                encoder.start(&json!(null), &mut out);
                encoder.failed(&error.to_string(), &mut out);
                guard.armed = None;
                let _ = frames.send(&mut out).await;
                return;
            }
        };
        let rejected = match &request {
            RunRequest::Decide(decisions) => rejected_calls(decisions),
            _ => Vec::new(),
        };
        // The rejected calls whose rejection the run streamed: recorded for the history.
        let mut denied = Vec::new();
        if let RunRequest::Decide(decisions) = &request
            && let Ok(Some(TeamThreadState {
                pending: Some(pending),
                ..
            })) = thread.load().await
        {
            resumed(&mut encoder, &pending.calls, decisions);
        }
        encoder.start(&json!({ "agent": agent }), &mut out);
        if frames.send(&mut out).await.is_err() {
            return;
        }
        let mut events = match request {
            RunRequest::Input(text) => thread.stream(text, context),
            RunRequest::Decide(decisions) | RunRequest::Messages(decisions) => {
                thread.resume_stream(decisions, context)
            }
        };
        while let Some(item) = events.next().await {
            if let Ok(TeamEvent::Agent {
                event: AgentEvent::ToolResult(step),
                ..
            }) = &item
                && rejected.contains(&step.call.id)
            {
                denied.push(step.call.id.clone());
            }
            match item {
                Ok(TeamEvent::Agent { event, .. }) => {
                    encode(&mut encoder, event, &mut out);
                }
                Ok(TeamEvent::Handoff { from, to }) => encoder.event(
                    Event::Handoff {
                        from: &from,
                        to: &to,
                    },
                    &mut out,
                ),
                Ok(_) => {}
                // The pause is saved: the approval request as an agent's run sends it.
                Err(TeamError::Paused { agent, .. }) => match thread.load().await {
                    Ok(Some(TeamThreadState {
                        pending: Some(pending),
                        ..
                    })) => encoder.paused(&pending.calls, &json!({ "agent": agent }), &mut out),
                    Ok(_) => encoder.failed("the paused run was not saved", &mut out),
                    Err(error) => encoder.failed(&error.to_string(), &mut out),
                },
                Err(error) => encoder.failed(&error.to_string(), &mut out),
            }
            if frames.send(&mut out).await.is_err() {
                // The client went away: `events` (the run) is dropped, then the guard.
                return;
            }
        }
        // After a failure the error was the last event; else the result is held.
        if let Ok(result) = events.result().await {
            let state = json!({ "agent": result.agent });
            encoder.finished(&json(&result.output), &state, &mut out);
        }
        if !denied.is_empty() {
            let messages = thread.load().await.map_err(Into::into);
            let messages = messages.map(|saved| saved.map(|s| s.messages).unwrap_or_default());
            record_denied(&inner.owners, &thread_id, messages, &denied).await;
        }
        // The run ended and is saved: nothing to cancel from here.
        guard.armed = None;
        if frames.send(&mut out).await.is_err() {
            return;
        }
        frames.end(encoder.end()).await;
    })
}
