//! What a run starts from: a new user message, optionally after prior messages.

use crate::message::Message;

/// The input of a run: the prior conversation (possibly empty) and the new messages.
///
/// A `&str` or `String` is one user message. Continue a conversation by passing the previous
/// run's messages (which serialize and reload) as history:
///
/// ```
/// use agentry::agent::Input;
/// use agentry::Message;
///
/// let previous = vec![Message::system("Be brief."), Message::user("Hi"), Message::assistant("Hello!")];
/// let input = Input::with_history(previous, "And in French?");
/// assert_eq!(input.messages().len(), 4);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Input {
    messages: Vec<Message>,
}

impl Input {
    /// One user message.
    pub fn new(text: impl Into<String>) -> Self {
        // Room for what a short run adds without growing: the instructions before the
        // question, then an answer calling a tool, its result and the final answer.
        let mut messages = Vec::with_capacity(5);
        messages.push(Message::user(text));
        Input { messages }
    }

    /// Prior messages, then a new user message. A leading system message in `history` is
    /// replaced by the agent's instructions when the agent has some.
    pub fn with_history(history: Vec<Message>, text: impl Into<String>) -> Self {
        let mut messages = history;
        messages.push(Message::user(text));
        Input { messages }
    }

    /// Exactly these messages (the last one is usually a user message).
    pub fn from_messages(messages: Vec<Message>) -> Self {
        Input { messages }
    }

    /// The messages.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    pub(crate) fn into_messages(self) -> Vec<Message> {
        self.messages
    }
}

impl From<&str> for Input {
    fn from(text: &str) -> Self {
        Input::new(text)
    }
}

impl From<String> for Input {
    fn from(text: String) -> Self {
        Input::new(text)
    }
}

impl From<Message> for Input {
    fn from(message: Message) -> Self {
        Input {
            messages: vec![message],
        }
    }
}

impl From<Vec<Message>> for Input {
    fn from(messages: Vec<Message>) -> Self {
        Input { messages }
    }
}
