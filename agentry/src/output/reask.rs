//! Correction requests: what is appended to the conversation after an invalid answer, so
//! that the history stays valid for every provider and the model learns what to fix.

use crate::message::{AssistantMessage, ContentBlock, Message, ToolResultMessage};

use super::error::AnswerError;

/// How many times a model is asked again after an invalid answer, unless configured.
pub const DEFAULT_MAX_RETRIES: u32 = 2;

/// What to tell a tool call that was not run because the answer was sent back.
const SKIPPED: &str = "Not run: the final answer in the same message was invalid, so the \
                       whole message was sent back. Call this tool again if you still need it.";

/// The messages that follow an invalid `answer`.
///
/// When the answer called tools, every call gets a tool result (providers reject a history
/// with unanswered calls): the final-answer call named `output_tool` gets the correction,
/// the others are reported as not run. A text answer gets the correction as a user message.
pub fn correction_messages(
    answer: &AssistantMessage,
    output_tool: Option<&str>,
    error: &AnswerError,
) -> Vec<Message> {
    let correction = error.correction();
    if answer.tool_calls.is_empty() {
        return vec![Message::user(correction)];
    }
    let mut corrected = false;
    answer
        .tool_calls
        .iter()
        .map(|call| {
            let text = if !corrected && Some(call.name.as_str()) == output_tool {
                corrected = true;
                correction.clone()
            } else {
                SKIPPED.to_string()
            };
            Message::Tool(ToolResultMessage {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: vec![ContentBlock::text(text)],
                is_error: true,
            })
        })
        .collect()
}
