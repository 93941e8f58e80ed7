//! [`SubAgentEvent`]: a sub-agent's stream event, nested in its parent's stream.

use serde_json::Value;

use super::event::AgentEvent;

/// An event of a sub-agent's run, nested in the parent's stream as
/// [`AgentEvent::SubAgent`].
///
/// The sub-agent's own output, state and event types are erased (its custom events arrive
/// as JSON; its `Done` and `Paused`
/// events are not forwarded: the parent sees the sub-agent's answer as the tool result of
/// `call_id`). A grandchild's events arrive as a `SubAgent` event inside `event`.
#[derive(Clone, Debug)]
pub struct SubAgentEvent {
    /// The sub-agent's tool name.
    pub agent: String,
    /// The parent's tool call that runs the sub-agent.
    pub call_id: String,
    /// The sub-agent's event.
    pub event: AgentEvent<Value, ()>,
}

impl SubAgentEvent {
    /// The names from the outermost sub-agent down to the one that sent the event, and the
    /// event itself: `(["researcher", "fact_checker"], TextDelta { .. })`.
    pub fn path(&self) -> (Vec<&str>, &AgentEvent<Value, ()>) {
        let mut names = vec![self.agent.as_str()];
        let mut event = &self.event;
        while let AgentEvent::SubAgent(inner) = event {
            names.push(inner.agent.as_str());
            event = &inner.event;
        }
        (names, event)
    }
}

/// A sub-agent's event with its types erased (its custom events as JSON); `None` for the
/// events the parent does not forward (the end of the sub-agent's run, a custom event that
/// does not serialize).
pub(crate) fn erase<T, S, E: serde::Serialize>(
    event: AgentEvent<T, S, E>,
) -> Option<AgentEvent<Value, ()>> {
    Some(match event {
        AgentEvent::TurnStart { turn } => AgentEvent::TurnStart { turn },
        AgentEvent::TextDelta { text } => AgentEvent::TextDelta { text },
        AgentEvent::ReasoningDelta { text } => AgentEvent::ReasoningDelta { text },
        AgentEvent::RefusalDelta { text } => AgentEvent::RefusalDelta { text },
        AgentEvent::ToolCallStart { index, id, name } => {
            AgentEvent::ToolCallStart { index, id, name }
        }
        AgentEvent::ToolCallDelta { index, arguments } => {
            AgentEvent::ToolCallDelta { index, arguments }
        }
        AgentEvent::PartialOutput { turn, partial } => AgentEvent::PartialOutput {
            turn,
            partial: partial.retype(),
        },
        AgentEvent::Usage { turn, usage } => AgentEvent::Usage { turn, usage },
        AgentEvent::Response { turn, message } => AgentEvent::Response { turn, message },
        AgentEvent::ToolResult(step) => AgentEvent::ToolResult(step),
        AgentEvent::Custom(event) => match serde_json::to_value(&event.data) {
            Ok(data) => AgentEvent::Custom(crate::tool::CustomEvent {
                call_id: event.call_id,
                data,
            }),
            Err(error) => {
                tracing::warn!(%error, "a sub-agent's custom event is not serializable; dropped");
                return None;
            }
        },
        AgentEvent::SubAgent(nested) => AgentEvent::SubAgent(nested),
        AgentEvent::Done { .. } | AgentEvent::Paused(_) => return None,
    })
}
