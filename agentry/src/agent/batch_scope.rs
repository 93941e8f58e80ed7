//! [`batch_scope`]: what the sub-agents run by one tool batch inherit from this run.

use std::sync::Arc;

use tokio::time::Instant;

use super::builder::Agent;
use super::event_queue::EventSender;
use crate::output::OutputSpec;
use crate::run::{AgentEvent, EventSink, RunScope, SubAgentEvent};
use crate::usage::Usage;

/// The scope of one tool batch of `agent`'s run: its model and sub-agent options, its
/// deadline, what is left of its token budget after `used`, and its stream, if any.
pub(crate) fn batch_scope<T, O, C, S, E>(
    agent: &Agent<T, O, C, S>,
    deadline: Option<Instant>,
    used: Usage,
    events: Option<&EventSender<O::Output, S, E>>,
) -> Arc<RunScope>
where
    O: OutputSpec,
    S: Send + 'static,
    E: Send + 'static,
{
    let parts = &agent.parts;
    let events = events.map(|sender| {
        let sender = sender.clone();
        Arc::new(move |event: SubAgentEvent| {
            // A dropped receiver means the parent's stream is gone, and this run with it.
            let _ = sender.send(AgentEvent::SubAgent(Box::new(event)));
        }) as EventSink
    });
    RunScope::for_batch(
        Arc::clone(&parts.model),
        parts.sub_agents.clone(),
        deadline,
        parts.policy.limits.max_total_tokens,
        used,
        events,
    )
}
