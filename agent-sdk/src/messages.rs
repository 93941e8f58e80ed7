//! [`Messages`]: a conversation shared between a run and its requests without copying it.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::message::Message;

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
/// use agent_sdk::{Message, Messages};
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
#[derive(Clone, Default)]
pub struct Messages(Option<Arc<Vec<Message>>>);

/// What an empty `Messages` derefs to.
static EMPTY: Vec<Message> = Vec::new();

impl Messages {
    /// An empty list.
    pub fn new() -> Self {
        Messages::default()
    }

    /// The messages as a `Vec`, without a copy when this is the only owner of the buffer.
    pub fn into_vec(self) -> Vec<Message> {
        self.0.map(Arc::unwrap_or_clone).unwrap_or_default()
    }

    /// Whether `self` and `other` share one buffer (a change to either would copy it).
    pub fn shares_with(&self, other: &Messages) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Deref for Messages {
    type Target = Vec<Message>;

    fn deref(&self) -> &Vec<Message> {
        self.0.as_deref().unwrap_or(&EMPTY)
    }
}

impl DerefMut for Messages {
    /// The list to change; copied first when a clone shares it.
    fn deref_mut(&mut self) -> &mut Vec<Message> {
        Arc::make_mut(self.0.get_or_insert_with(Default::default))
    }
}

impl PartialEq for Messages {
    fn eq(&self, other: &Messages) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Messages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl From<Vec<Message>> for Messages {
    fn from(messages: Vec<Message>) -> Self {
        Messages(Some(Arc::new(messages)))
    }
}

impl From<Messages> for Vec<Message> {
    fn from(messages: Messages) -> Self {
        messages.into_vec()
    }
}

impl FromIterator<Message> for Messages {
    fn from_iter<I: IntoIterator<Item = Message>>(iter: I) -> Self {
        Messages::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl Extend<Message> for Messages {
    fn extend<I: IntoIterator<Item = Message>>(&mut self, iter: I) {
        self.deref_mut().extend(iter);
    }
}

impl IntoIterator for Messages {
    type Item = Message;
    type IntoIter = std::vec::IntoIter<Message>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl<'a> IntoIterator for &'a Messages {
    type Item = &'a Message;
    type IntoIter = std::slice::Iter<'a, Message>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq<Vec<Message>> for Messages {
    fn eq(&self, other: &Vec<Message>) -> bool {
        **self == *other
    }
}

impl PartialEq<[Message]> for Messages {
    fn eq(&self, other: &[Message]) -> bool {
        self.as_slice() == other
    }
}

impl<const N: usize> PartialEq<[Message; N]> for Messages {
    fn eq(&self, other: &[Message; N]) -> bool {
        self.as_slice() == other
    }
}

impl Serialize for Messages {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Messages {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Message>::deserialize(deserializer).map(Messages::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_through_a_shared_clone_copies_and_leaves_the_other_alone() {
        let mut a = Messages::from(vec![Message::user("one")]);
        let b = a.clone();
        assert!(a.shares_with(&b));
        a.push(Message::user("two"));
        assert!(!a.shares_with(&b));
        assert_eq!((a.len(), b.len()), (2, 1));
    }

    #[test]
    fn a_change_to_the_only_owner_keeps_the_buffer() {
        let mut a = Messages::from(Vec::with_capacity(8));
        a.push(Message::user("one"));
        let before = a.as_ptr();
        let sent = a.clone();
        drop(sent);
        a.push(Message::user("two"));
        assert_eq!(a.as_ptr(), before, "no copy once the clone is gone");
    }

    #[test]
    fn an_empty_list_allocates_nothing_until_a_message_is_added() {
        let mut a = Messages::new();
        assert!(a.is_empty() && a.0.is_none());
        assert_eq!(a, Messages::from(Vec::new()));
        assert!(!a.shares_with(&a.clone()), "no buffer to share");
        a.push(Message::user("one"));
        assert_eq!(a.len(), 1);
        assert!(a.shares_with(&a.clone()));
    }

    #[test]
    fn serializes_as_the_plain_list() {
        let a = Messages::from(vec![Message::user("hi")]);
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, serde_json::to_string(&a.clone().into_vec()).unwrap());
        let back: Messages = serde_json::from_str(&json).unwrap();
        assert_eq!(back, a);
    }
}
