//! [`Messages`]: a conversation shared between a run and its requests without copying it.

use crate::message::Message;
use crate::shared_list::SharedList;

/// A list of messages that is cheap to clone: clones share one buffer, and the first change
/// made through a clone that is not the only one copies it (copy on write).
///
/// A run keeps its transcript in a `Messages` and hands a clone to each model request, so a
/// conversation of a thousand messages costs a reference count per turn, not a copy. When the
/// request is done its clone is gone, and the run appends the answer in place.
///
/// It reads and changes like the `Vec<Message>` it derefs to:
///
/// ```
/// use agentry::{Message, Messages};
///
/// let mut history = Messages::from(vec![Message::system("Be brief.")]);
/// history.push(Message::user("Hi"));
/// let sent = history.clone(); // shares the buffer
/// assert!(history.shares_with(&sent));
/// history.push(Message::assistant("Hello.")); // copies once: `sent` is still alive
/// assert_eq!((sent.len(), history.len()), (2, 3));
/// drop(sent);
/// history.push(Message::user("Bye")); // the only owner again: appends in place
/// assert_eq!(history.last().map(Message::text).as_deref(), Some("Bye"));
/// let plain: Vec<Message> = history.into_vec(); // no copy when unshared
/// assert_eq!(plain.len(), 4);
/// ```
///
/// An empty list (`Messages::new()`, `Default`) allocates nothing until a message is added.
pub type Messages = SharedList<Message>;

/// A conversation of one user message: what a plain prompt means wherever messages are taken
/// (`model.structured::<T>().invoke("...")`, `BoundTools::invoke`).
///
/// ```
/// use agentry::{Message, Messages};
///
/// let asked = Messages::from("Weather in Paris?");
/// assert_eq!(asked.as_slice(), [Message::user("Weather in Paris?")]);
/// ```
impl From<&str> for Messages {
    fn from(text: &str) -> Self {
        Messages::from(vec![Message::user(text)])
    }
}

/// A conversation of one user message (see `From<&str>`).
impl From<String> for Messages {
    fn from(text: String) -> Self {
        Messages::from(vec![Message::user(text)])
    }
}

/// A conversation of this one message.
impl From<Message> for Messages {
    fn from(message: Message) -> Self {
        Messages::from(vec![message])
    }
}
