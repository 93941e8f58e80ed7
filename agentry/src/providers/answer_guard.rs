//! What every answer goes through before the caller sees it, whatever the wire format: the
//! tool-call caps of [`ResponseLimits`] and unique, non-empty tool-call ids.
//!
//! Some OpenAI-compatible servers send an empty id, or the same id for several calls of one
//! answer; a tool result could then not say which call it answers, and the next request would
//! be rejected. Such ids are replaced (by `call_` and 16 random hex digits) before the answer
//! enters the history; a streamed answer's `ToolCallStart` events and its final response carry
//! the same replacement.

use std::collections::HashSet;

use crate::http::{ResponseLimit, ResponseLimits};
use crate::message::ToolCall;
use crate::model::{ChatResponse, ModelError, StreamEvent};

/// A fresh tool-call id.
pub(crate) fn fresh_call_id() -> String {
    format!("call_{:016x}", crate::random::u64())
}

/// Replaces empty ids and repeated ids (after their first use) by fresh ones.
pub(crate) fn make_ids_unique(calls: &mut [ToolCall]) {
    // Answers hold a few calls: a scan of the earlier ones costs less than hashing. Past a
    // few dozen (at most `max_tool_calls`), a set keeps it linear.
    let repeated: Vec<usize> = if calls.len() <= 32 {
        (0..calls.len())
            .filter(|&i| calls[i].id.is_empty() || calls[..i].iter().any(|c| c.id == calls[i].id))
            .collect()
    } else {
        let mut seen = HashSet::with_capacity(calls.len());
        (0..calls.len())
            .filter(|&i| calls[i].id.is_empty() || !seen.insert(calls[i].id.as_str()))
            .collect()
    };
    for i in repeated {
        let call = &mut calls[i];
        let fresh = fresh_call_id();
        tracing::debug!(tool = %call.name, given = %call.id, id = %fresh, "replacing an empty or repeated tool call id");
        call.id = fresh;
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

/// The state of one streamed answer (one choice): the calls begun, each with its stream
/// index, the id it was given and its argument bytes so far.
#[derive(Default)]
pub(crate) struct CallGuard {
    calls: Vec<Begun>,
    /// Argument bytes of deltas for calls that never started (a server's mistake).
    orphan_bytes: usize,
}

/// One call begun in a stream.
struct Begun {
    index: usize,
    id: String,
    bytes: usize,
}

impl CallGuard {
    /// The call begun with stream index `index` (deltas mostly go to the latest one).
    fn call(&mut self, index: usize) -> Option<&mut Begun> {
        self.calls.iter_mut().rev().find(|c| c.index == index)
    }

    /// Checks `event` against the caps; gives a `ToolCallStart` a unique id, and a
    /// `Completed` answer the ids its calls were started with.
    pub(crate) fn on_event(
        &mut self,
        limits: &ResponseLimits,
        event: &mut StreamEvent,
    ) -> Result<(), ModelError> {
        match event {
            StreamEvent::ToolCallStart { index, id, name } => {
                if self.calls.len() >= limits.max_tool_calls {
                    return Err(ResponseLimit::ToolCalls.exceeded(limits.max_tool_calls));
                }
                if id.is_empty() || self.calls.iter().any(|c| c.id == *id) {
                    let fresh = fresh_call_id();
                    tracing::debug!(tool = %name, given = %id, id = %fresh, "replacing an empty or repeated tool call id");
                    *id = fresh;
                }
                self.calls.push(Begun {
                    index: *index,
                    id: id.clone(),
                    bytes: 0,
                });
            }
            StreamEvent::ToolCallDelta { index, arguments } => {
                let total = match self.call(*index) {
                    Some(call) => {
                        call.bytes += arguments.len();
                        call.bytes
                    }
                    // Arguments for calls that never started: counted together.
                    None => {
                        self.orphan_bytes += arguments.len();
                        self.orphan_bytes
                    }
                };
                if total > limits.max_tool_call_bytes {
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
            if let Some(begun) = self.call(i) {
                call.id.clone_from(&begun.id);
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
