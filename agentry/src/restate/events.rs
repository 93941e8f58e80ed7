//! [`RunEvent`]: a streamed run's [`AgentEvent`]s as owned, serializable values, the form in
//! which a Restate run journals and publishes them (see [`EventHub`](super::EventHub)).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::{AssistantMessage, ContentBlock, ToolCall};
use crate::middleware::ReviewRequest;
use crate::run::{AgentEvent, StopReason};
use crate::usage::Usage;

/// One event of a run, as JSON sees it: `{"type": "text_delta", "text": "Hi"}`.
///
/// The same events [`Agent::stream`](crate::agent::Agent::stream) yields, typed values turned
/// into JSON (the partial output, the tools' custom events) and a failed run's error into its
/// message, so an in-process stream and a Restate run's published events compare equal
/// through [`RunEvent::from_event`].
///
/// ```
/// use agentry::restate::RunEvent;
/// use agentry::agent::AgentEvent;
///
/// let event: AgentEvent<String, ()> = AgentEvent::TextDelta { text: "Hi".into() };
/// let run_event = RunEvent::from_event(&event).unwrap();
/// assert_eq!(
///     serde_json::to_value(&run_event).unwrap(),
///     serde_json::json!({ "type": "text_delta", "text": "Hi" })
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunEvent {
    /// Model request `turn` is about to be sent.
    TurnStart {
        /// The request's number (1-based).
        turn: u32,
    },
    /// A piece of answer text.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// A piece of reasoning text.
    ReasoningDelta {
        /// The new text.
        text: String,
    },
    /// A piece of a refusal.
    RefusalDelta {
        /// The new text.
        text: String,
    },
    /// The model started a tool call.
    ToolCallStart {
        /// The call's position in the answer.
        index: usize,
        /// The provider's call id.
        id: String,
        /// The tool name.
        name: String,
    },
    /// A piece of a tool call's JSON arguments.
    ToolCallDelta {
        /// The call's position in the answer.
        index: usize,
        /// The new argument text.
        arguments: String,
    },
    /// The output so far.
    PartialOutput {
        /// The request's number.
        turn: u32,
        /// The output so far, as JSON.
        partial: Value,
    },
    /// The usage of request `turn`.
    Usage {
        /// The request's number.
        turn: u32,
        /// Its usage.
        usage: Usage,
    },
    /// The whole answer to request `turn`.
    Response {
        /// The request's number.
        turn: u32,
        /// The answer.
        message: Box<AssistantMessage>,
    },
    /// A tool call finished.
    ToolResult {
        /// The request whose answer made the call.
        turn: u32,
        /// The call.
        call: ToolCall,
        /// What the tool returned (absent when it failed).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<Vec<ContentBlock>>,
        /// Why the call failed (absent when it did not).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// An event a tool wrote through its [`StreamWriter`](crate::StreamWriter).
    Custom {
        /// The writing call's id.
        call_id: String,
        /// The event, as JSON.
        data: Value,
    },
    /// An event of a sub-agent.
    SubAgent {
        /// The sub-agent's tool name.
        agent: String,
        /// The parent's call that runs it.
        call_id: String,
        /// Its event.
        event: Box<RunEvent>,
    },
    /// The run finished.
    Done {
        /// Tokens and requests spent in total.
        usage: Usage,
        /// Why the run ended.
        stop_reason: StopReason,
    },
    /// The run stopped for review of these calls.
    Paused {
        /// The calls that need a decision.
        reviews: Vec<ReviewRequest>,
    },
    /// The run failed.
    Failed {
        /// The error, as text.
        message: String,
    },
}

impl RunEvent {
    /// The event as a value, `None` for the few that do not serialize (a tool's custom event
    /// whose `Serialize` fails).
    pub fn from_event<T, S, E: Serialize>(event: &AgentEvent<T, S, E>) -> Option<RunEvent> {
        Some(match event {
            AgentEvent::TurnStart { turn } => RunEvent::TurnStart { turn: *turn },
            AgentEvent::TextDelta { text } => RunEvent::TextDelta { text: text.clone() },
            AgentEvent::ReasoningDelta { text } => RunEvent::ReasoningDelta { text: text.clone() },
            AgentEvent::RefusalDelta { text } => RunEvent::RefusalDelta { text: text.clone() },
            AgentEvent::ToolCallStart { index, id, name } => RunEvent::ToolCallStart {
                index: *index,
                id: id.clone(),
                name: name.clone(),
            },
            AgentEvent::ToolCallDelta { index, arguments } => RunEvent::ToolCallDelta {
                index: *index,
                arguments: arguments.clone(),
            },
            AgentEvent::PartialOutput { turn, partial } => RunEvent::PartialOutput {
                turn: *turn,
                partial: partial.value().clone(),
            },
            AgentEvent::Usage { turn, usage } => RunEvent::Usage {
                turn: *turn,
                usage: *usage,
            },
            AgentEvent::Response { turn, message } => RunEvent::Response {
                turn: *turn,
                message: message.clone(),
            },
            AgentEvent::ToolResult(step) => {
                let (content, error) = match &step.result {
                    Ok(output) => (Some(output.content.clone()), None),
                    Err(error) => (None, Some(error.to_string())),
                };
                RunEvent::ToolResult {
                    turn: step.turn,
                    call: step.call.clone(),
                    content,
                    error,
                }
            }
            AgentEvent::Custom(custom) => RunEvent::Custom {
                call_id: custom.call_id.clone(),
                data: serde_json::to_value(&custom.data).ok()?,
            },
            AgentEvent::SubAgent(sub) => RunEvent::SubAgent {
                agent: sub.agent.clone(),
                call_id: sub.call_id.clone(),
                event: Box::new(RunEvent::from_event(&sub.event)?),
            },
            AgentEvent::Done {
                usage, stop_reason, ..
            } => RunEvent::Done {
                usage: *usage,
                stop_reason: stop_reason.clone(),
            },
            AgentEvent::Paused(pause) => RunEvent::Paused {
                reviews: pause.reviews().cloned().collect(),
            },
        })
    }
}

/// A published event: its number in the run's sequence and the event.
///
/// `seq` counts the run's events from 0 in journal order: every attempt of the invocation
/// (a replay after a crash included) gives an event the same number, so a subscriber that
/// has seen `seq` `n` skips whatever arrives again with `seq <= n`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StreamedEvent {
    /// The event's number, from 0.
    pub seq: u64,
    /// The event.
    pub event: RunEvent,
}
