//! One model request of a run without middleware: the request built from the transcript,
//! and the answer awaited whole or streamed with its deltas forwarded as events.

use std::future::Future;

use futures::StreamExt;
use futures::future::Either;

use super::builder::Agent;
use super::event_queue::EventSender;
use super::output_tap::OutputTap;
use crate::guard::billed::Reported;
use crate::messages::Messages;
use crate::middleware::{Forwarded, hand_over};
use crate::model::{ChatModel, ChatRequest, ChatResponse, EventStream, ModelError, StreamEvent};
use crate::output::OutputSpec;
use crate::run::AgentEvent;

/// The request for the next turn: the transcript, the agent's tools (unless `with_tools` is
/// false: the last request at a limit) and settings, prepared for the output spec.
pub(super) fn build_request<T, O, C, S>(
    agent: &Agent<T, O, C, S>,
    messages: &Messages,
    with_tools: bool,
) -> ChatRequest
where
    O: OutputSpec,
{
    let parts = &agent.parts;
    super::request::build(
        &parts.output,
        parts.model.profile(),
        messages.clone(),
        agent.definitions.clone(),
        with_tools,
        &parts.settings,
    )
}

/// Where a streamed request's deltas go.
pub(super) struct Forward<'a, T, S, E> {
    pub(super) events: &'a EventSender<T, S, E>,
    pub(super) turn: u32,
    pub(super) tap: OutputTap,
    pub(super) is_output_tool: &'a (dyn Fn(&str) -> bool + Sync),
    /// Where the usage the stream reports is kept, should the request be cancelled.
    pub(super) reported: &'a Reported,
}

/// One model request: `invoke`, or `stream` with deltas forwarded as events (the final answer
/// as partial outputs).
///
/// Not an `async fn`, like [`within`](super::driver::within): an `async fn` keeps its
/// arguments twice in its state, and this future sits in the run's.
pub(super) fn call_model<'a, T, S, E>(
    model: &'a dyn ChatModel,
    request: ChatRequest,
    forward: Option<Forward<'a, T, S, E>>,
) -> impl Future<Output = Result<ChatResponse, ModelError>> + 'a {
    match forward {
        None => Either::Left(model.invoke(request)),
        // Boxed: the stream's reader is larger than the rest of the call.
        Some(fw) => Either::Right(Box::pin(forward_stream(model.stream(request), fw))),
    }
}

/// Reads a model's stream to its final answer, forwarding the deltas.
async fn forward_stream<T, S, E>(
    mut stream: EventStream,
    mut fw: Forward<'_, T, S, E>,
) -> Result<ChatResponse, ModelError> {
    while let Some(event) = stream.next().await {
        match event? {
            StreamEvent::Completed { response } => return Ok(*response),
            other => {
                if send(&mut fw, other) == Forwarded::HandOver {
                    hand_over().await;
                }
            }
        }
    }
    Err(ModelError::Incomplete(
        "the model's stream ended before its final answer".to_string(),
    ))
}

/// Sends one of the model's stream events on as the run's event (the final answer as
/// partial outputs); [`Forwarded::HandOver`] when it sent a partial output.
pub(super) fn send<T, S, E>(fw: &mut Forward<'_, T, S, E>, event: StreamEvent) -> Forwarded {
    let turn = fw.turn;
    let event = match event {
        StreamEvent::TextDelta { text } => {
            if let Some(partial) = fw.tap.feed_text(&text) {
                let _ = fw.events.send(AgentEvent::TextDelta { text });
                AgentEvent::PartialOutput {
                    turn,
                    partial: partial.retype(),
                }
            } else {
                AgentEvent::TextDelta { text }
            }
        }
        StreamEvent::ReasoningDelta { text } => AgentEvent::ReasoningDelta { text },
        StreamEvent::RefusalDelta { text } => AgentEvent::RefusalDelta { text },
        StreamEvent::ToolCallStart { index, id, name } => {
            if fw.tap.start_call(index, (fw.is_output_tool)(&name)) {
                return Forwarded::Queued;
            }
            AgentEvent::ToolCallStart { index, id, name }
        }
        StreamEvent::ToolCallDelta { index, arguments } => {
            if fw.tap.is_output_call(index) {
                match fw.tap.feed_call(&arguments) {
                    Some(partial) => AgentEvent::PartialOutput {
                        turn,
                        partial: partial.retype(),
                    },
                    None => return Forwarded::Queued,
                }
            } else {
                AgentEvent::ToolCallDelta { index, arguments }
            }
        }
        // Reported once per request from the final answer; kept until then, for a request
        // cancelled before it (by an input guardrail).
        StreamEvent::Usage { usage } => {
            fw.reported.record(usage);
            return Forwarded::Queued;
        }
        StreamEvent::Completed { .. } => return Forwarded::Queued,
    };
    let partial = matches!(event, AgentEvent::PartialOutput { .. });
    if fw.events.send(event) && partial {
        Forwarded::HandOver
    } else {
        Forwarded::Queued
    }
}
