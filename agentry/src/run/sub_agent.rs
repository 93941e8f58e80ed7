//! [`SubAgentEvent`]: a sub-agent's stream event, nested in its parent's stream.

use serde_json::Value;

use super::event::AgentEvent;

/// An event of a sub-agent's run, nested in the parent's stream as
/// [`AgentEvent::SubAgent`].
///
/// The sub-agent's own output and state types are erased (its `Done` and `Paused`
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

/// A sub-agent's event with its types erased; `None` for the events the parent does not
/// forward (the end of the sub-agent's run).
pub(crate) fn erase<T, S>(event: AgentEvent<T, S>) -> Option<AgentEvent<Value, ()>> {
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
        AgentEvent::PartialOutput { turn, partial } => AgentEvent::PartialOutput { turn, partial },
        AgentEvent::Usage { turn, usage } => AgentEvent::Usage { turn, usage },
        AgentEvent::Response { turn, message } => AgentEvent::Response { turn, message },
        AgentEvent::ToolResult(step) => AgentEvent::ToolResult(step),
        AgentEvent::Custom(event) => AgentEvent::Custom(event),
        AgentEvent::SubAgent(nested) => AgentEvent::SubAgent(nested),
        AgentEvent::Done { .. } | AgentEvent::Paused(_) => return None,
    })
}
