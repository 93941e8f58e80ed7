//! Keeping a run's transcript valid input for the next run: every tool call answered.
//!
//! Providers reject a request whose history holds a tool call without a result (OpenAI and
//! Anthropic with a 400), so however a run ends — a final answer through the final-answer
//! tool, a limit, an exhausted retry budget, a `return_direct` tool — the calls of its last
//! answer that got no result are answered before the transcript is handed back.

use crate::message::{ContentBlock, Message, ToolResultMessage};

/// The result text given to the final-answer tool's call when the run ends with it.
pub(crate) const FINAL_ANSWER_RECEIVED: &str = "Final answer received.";

/// Answers every call of the last assistant message that has no tool result after it, with
/// `text` (an error result when `is_error`). Returns how many calls were answered.
pub(crate) fn answer_pending(messages: &mut Vec<Message>, text: &str, is_error: bool) -> usize {
    let Some(last) = messages
        .iter()
        .rposition(|m| matches!(m, Message::Assistant(_)))
    else {
        return 0;
    };
    let Message::Assistant(answer) = &messages[last] else {
        return 0;
    };
    let answered: Vec<&str> = messages[last + 1..]
        .iter()
        .filter_map(|m| match m {
            Message::Tool(t) => Some(t.call_id.as_str()),
            _ => None,
        })
        .collect();
    let pending: Vec<Message> = answer
        .tool_calls
        .iter()
        .filter(|call| !answered.contains(&call.id.as_str()))
        .map(|call| {
            Message::Tool(ToolResultMessage {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: vec![ContentBlock::text(text)],
                is_error,
            })
        })
        .collect();
    let count = pending.len();
    if count > 0 {
        // Results go right after the answer's other results, before any later user message.
        let at = messages[last + 1..]
            .iter()
            .position(|m| !matches!(m, Message::Tool(_)))
            .map_or(messages.len(), |i| last + 1 + i);
        messages.splice(at..at, pending);
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;

    #[test]
    fn answers_only_the_calls_without_results_before_later_messages() {
        let mut messages = vec![
            Message::user("go"),
            Message::assistant_tool_calls(vec![
                ToolCall::new("a", "x", "{}"),
                ToolCall::new("b", "y", "{}"),
            ]),
            Message::tool_result("a", "x", "done"),
            Message::user("final answer please"),
        ];
        assert_eq!(answer_pending(&mut messages, "Not run.", true), 1);
        assert!(matches!(&messages[3], Message::Tool(t) if t.call_id == "b" && t.is_error));
        assert_eq!(messages[4], Message::user("final answer please"));
        assert_eq!(answer_pending(&mut messages, "Not run.", true), 0);
    }
}
