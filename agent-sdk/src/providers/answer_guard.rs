//! What every answer goes through before the caller sees it, whatever the wire format: the
//! tool-call caps of [`ResponseLimits`] and unique, non-empty tool-call ids.
//!
//! Some OpenAI-compatible servers send an empty id, or the same id for several calls of one
//! answer; a tool result could then not say which call it answers, and the next request would
//! be rejected. Such ids are replaced (by `call_` and 16 random hex digits) before the answer
//! enters the history; a streamed answer's `ToolCallStart` events and its final response carry
//! the same replacement.

use std::collections::{HashMap, HashSet};

use crate::http::{ResponseLimit, ResponseLimits};
use crate::message::ToolCall;
use crate::model::{ChatResponse, ModelError, StreamEvent};

/// A fresh tool-call id.
pub(crate) fn fresh_call_id() -> String {
    format!("call_{:016x}", rand::random::<u64>())
}

/// Replaces empty ids and repeated ids (after their first use) by fresh ones.
pub(crate) fn make_ids_unique(calls: &mut [ToolCall]) {
    let mut seen = HashSet::with_capacity(calls.len());
    for call in calls {
        if call.id.is_empty() || !seen.insert(call.id.clone()) {
            let fresh = fresh_call_id();
            tracing::debug!(tool = %call.name, given = %call.id, id = %fresh, "replacing an empty or repeated tool call id");
            call.id = fresh.clone();
            seen.insert(fresh);
        }
    }
}

/// Checks a whole answer against the tool-call caps and makes its ids unique.
pub(crate) fn check_response(
    limits: &ResponseLimits,
    response: &mut ChatResponse,
) -> Result<(), ModelError> {
    check_calls(limits, &response.message.tool_calls)?;
    make_ids_unique(&mut response.message.tool_calls);
    Ok(())
}

fn check_calls(limits: &ResponseLimits, calls: &[ToolCall]) -> Result<(), ModelError> {
    if calls.len() > limits.max_tool_calls {
        return Err(ResponseLimit::ToolCalls.exceeded(limits.max_tool_calls));
    }
    if calls
        .iter()
        .any(|c| c.arguments.len() > limits.max_tool_call_bytes)
    {
        return Err(ResponseLimit::ToolCallBytes.exceeded(limits.max_tool_call_bytes));
    }
    Ok(())
}

/// The state of one streamed answer (one choice): calls begun, argument bytes per call, and
/// the ids handed out.
#[derive(Default)]
pub(crate) struct CallGuard {
    started: usize,
    bytes: HashMap<usize, usize>,
    ids: HashMap<usize, String>,
    seen: HashSet<String>,
}

impl CallGuard {
    /// Checks `event` against the caps; gives a `ToolCallStart` a unique id, and a
    /// `Completed` answer the ids its calls were started with.
    pub(crate) fn on_event(
        &mut self,
        limits: &ResponseLimits,
        event: &mut StreamEvent,
    ) -> Result<(), ModelError> {
        match event {
            StreamEvent::ToolCallStart { index, id, name } => {
                self.started += 1;
                if self.started > limits.max_tool_calls {
                    return Err(ResponseLimit::ToolCalls.exceeded(limits.max_tool_calls));
                }
                if id.is_empty() || self.seen.contains(id.as_str()) {
                    let fresh = fresh_call_id();
                    tracing::debug!(tool = %name, given = %id, id = %fresh, "replacing an empty or repeated tool call id");
                    *id = fresh;
                }
                self.seen.insert(id.clone());
                self.ids.insert(*index, id.clone());
            }
            StreamEvent::ToolCallDelta { index, arguments } => {
                let total = self.bytes.entry(*index).or_default();
                *total += arguments.len();
                if *total > limits.max_tool_call_bytes {
                    return Err(ResponseLimit::ToolCallBytes.exceeded(limits.max_tool_call_bytes));
                }
            }
            StreamEvent::Completed { response } => self.complete(limits, response)?,
            _ => {}
        }
        Ok(())
    }

    /// Gives the calls of the assembled answer the ids their starts were given.
    pub(crate) fn complete(
        &mut self,
        limits: &ResponseLimits,
        response: &mut ChatResponse,
    ) -> Result<(), ModelError> {
        let calls = &mut response.message.tool_calls;
        check_calls(limits, calls)?;
        for (i, call) in calls.iter_mut().enumerate() {
            if let Some(id) = self.ids.get(&i) {
                call.id.clone_from(id);
            }
        }
        make_ids_unique(calls);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_repeated_ids_are_replaced() {
        let mut calls = vec![
            ToolCall::new("", "a", "{}"),
            ToolCall::new("x", "b", "{}"),
            ToolCall::new("x", "c", "{}"),
            ToolCall::new("", "d", "{}"),
        ];
        make_ids_unique(&mut calls);
        let ids: HashSet<_> = calls.iter().map(|c| c.id.clone()).collect();
        assert_eq!(ids.len(), 4);
        assert_eq!(calls[1].id, "x");
        assert!(calls.iter().all(|c| !c.id.is_empty()));
    }
}
