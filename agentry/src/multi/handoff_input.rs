//! [`HandoffInput`]: what the agent taking over a conversation sees of it.

use std::fmt;
use std::sync::Arc;

use crate::message::Message;

/// Filters the conversation handed to the next agent (the OpenAI Agents SDK's
/// `input_filter`). System messages of the previous agent are always left out: the next
/// agent brings its own instructions.
///
/// ```
/// use agentry::Message;
/// use agentry::multi::HandoffInput;
///
/// let history = vec![
///     Message::system("You are triage."),
///     Message::user("My invoice is wrong."),
///     Message::assistant("Let me look."),
/// ];
/// assert_eq!(HandoffInput::full().apply(history.clone()).len(), 2);
/// assert_eq!(HandoffInput::last_user_message().apply(history), vec![Message::user("My invoice is wrong.")]);
/// ```
#[derive(Clone)]
pub struct HandoffInput {
    filter: Arc<dyn Fn(Vec<Message>) -> Vec<Message> + Send + Sync>,
    name: &'static str,
}

impl HandoffInput {
    /// The whole conversation, tool calls included (the default).
    pub fn full() -> Self {
        HandoffInput {
            filter: Arc::new(|messages| messages),
            name: "full",
        }
    }

    /// The conversation without tool calls and their results (the OpenAI Agents SDK's
    /// `remove_all_tools`): what was said, not how it was looked up.
    pub fn without_tools() -> Self {
        HandoffInput {
            filter: Arc::new(|messages| {
                messages
                    .into_iter()
                    .filter_map(|message| match message {
                        Message::Tool(_) => None,
                        Message::Assistant(mut answer) => {
                            answer.tool_calls.clear();
                            let empty = answer.content.is_empty() && answer.refusal.is_none();
                            (!empty).then_some(Message::Assistant(answer))
                        }
                        other => Some(other),
                    })
                    .collect()
            }),
            name: "without_tools",
        }
    }

    /// Only the last user message.
    pub fn last_user_message() -> Self {
        HandoffInput {
            filter: Arc::new(|messages| {
                messages
                    .into_iter()
                    .rev()
                    .find(|m| matches!(m, Message::User(_)))
                    .into_iter()
                    .collect()
            }),
            name: "last_user_message",
        }
    }

    /// Your own filter. It must keep the history valid: every tool result after the
    /// assistant message that called it.
    pub fn new(filter: impl Fn(Vec<Message>) -> Vec<Message> + Send + Sync + 'static) -> Self {
        HandoffInput {
            filter: Arc::new(filter),
            name: "custom",
        }
    }

    /// The filtered conversation, without system messages.
    pub fn apply(&self, messages: Vec<Message>) -> Vec<Message> {
        let messages = messages
            .into_iter()
            .filter(|m| !matches!(m, Message::System { .. }))
            .collect();
        (self.filter)(messages)
    }
}

impl Default for HandoffInput {
    fn default() -> Self {
        HandoffInput::full()
    }
}

impl fmt::Debug for HandoffInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HandoffInput::{}", self.name)
    }
}
