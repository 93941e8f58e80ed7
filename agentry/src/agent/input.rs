//! What a run starts from: a new user message, optionally after prior messages.

use crate::message::Message;
use crate::messages::Messages;

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
    messages: Messages,
}

impl Input {
    /// One user message.
    pub fn new(text: impl Into<String>) -> Self {
        // Room for what a short run adds without growing: the instructions before the
        // question, then an answer calling a tool, its result and the final answer.
        let mut messages = Vec::with_capacity(5);
        messages.push(Message::user(text));
        Input {
            messages: messages.into(),
        }
    }

    /// Prior messages, then a new user message. A leading system message in `history` is
    /// replaced by the agent's instructions when the agent has some.
    ///
    /// `history` is a `Vec<Message>` or a run's [`Messages`]
    /// ([`RunResult::messages`](crate::run::RunResult::messages)), which is shared, not
    /// copied: appending copies it once only while the result still holds it.
    pub fn with_history(history: impl Into<Messages>, text: impl Into<String>) -> Self {
        let mut messages = history.into();
        messages.push(Message::user(text));
        Input { messages }
    }

    /// Exactly these messages (the last one is usually a user message).
    pub fn from_messages(messages: impl Into<Messages>) -> Self {
        Input {
            messages: messages.into(),
        }
    }

    /// The messages.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    pub(crate) fn into_messages(self) -> Messages {
        self.messages
    }
}

/// What a run takes as its input: text (`&str`, `String`), a [`Message`], a `Vec<Message>`,
/// [`Messages`] or an [`Input`]. Anything that converts `Into<Input>` is one.
///
/// ```
/// use agentry::agent::{AgentBuilder, IntoInput, NoTools};
/// use agentry::testing::{ScriptedModel, Turn};
///
/// async fn ask(question: impl IntoInput) -> String {
///     let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("Paris.")]), NoTools)
///         .build();
///     agent.run(question, ()).await.unwrap().output
/// }
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// assert_eq!(ask("Capital of France?").await, "Paris.");
/// # });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a run's input",
    label = "the run's input",
    note = "pass text (`&str`, `String`), a `Message`, a `Vec<Message>` or an `Input`; for a type of your own, implement `From<YourType> for agentry::agent::Input`"
)]
pub trait IntoInput: Into<Input> {}

#[diagnostic::do_not_recommend]
impl<T: Into<Input>> IntoInput for T {}

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
            messages: vec![message].into(),
        }
    }
}

impl From<Vec<Message>> for Input {
    fn from(messages: Vec<Message>) -> Self {
        Input {
            messages: messages.into(),
        }
    }
}

impl From<Messages> for Input {
    fn from(messages: Messages) -> Self {
        Input { messages }
    }
}
