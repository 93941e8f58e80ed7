//! [`SharedList`]: a list shared between its clones without copying it, copied on the first
//! change through a clone that is not the only one. A run's transcript
//! ([`Messages`](crate::Messages)) and a request's tools ([`Tools`](crate::model::Tools)) are
//! such lists.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A list that is cheap to clone: clones share one buffer, and the first change made through a
/// clone that is not the only one copies it (copy on write).
///
/// A run keeps its transcript in one ([`Messages`](crate::Messages)) and hands a clone to each
/// model request, so a conversation of a thousand messages costs a reference count per turn,
/// not a copy. When the request is done its clone is gone, and the run appends the answer in
/// place. An agent's tool definitions go to each request the same way.
///
/// It reads and changes like the `Vec<T>` it derefs to:
///
/// ```
/// use agentry::SharedList;
///
/// let mut names = SharedList::from(vec!["search".to_string()]);
/// let sent = names.clone(); // shares the buffer
/// assert!(names.shares_with(&sent));
/// names.push("fetch".to_string()); // copies once: `sent` is still alive
/// assert_eq!((sent.len(), names.len()), (1, 2));
/// drop(sent);
/// names.push("summarize".to_string()); // the only owner again: pushes in place
/// let plain: Vec<String> = names.into_vec(); // no copy when unshared
/// assert_eq!(plain, ["search", "fetch", "summarize"]);
/// ```
///
/// An empty list (`SharedList::new()`, `Default`) allocates nothing until an item is added.
pub struct SharedList<T>(Option<Arc<Vec<T>>>);

impl<T> Clone for SharedList<T> {
    fn clone(&self) -> Self {
        SharedList(self.0.clone())
    }
}

impl<T> Default for SharedList<T> {
    fn default() -> Self {
        SharedList(None)
    }
}

impl<T> SharedList<T> {
    /// An empty list.
    pub fn new() -> Self {
        SharedList::default()
    }

    /// The items as a `Vec`, without a copy when this is the only owner of the buffer.
    pub fn into_vec(self) -> Vec<T>
    where
        T: Clone,
    {
        self.0.map(Arc::unwrap_or_clone).unwrap_or_default()
    }

    /// Whether `self` and `other` share one buffer (a change to either would copy it).
    pub fn shares_with(&self, other: &SharedList<T>) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl<T: 'static> SharedList<T> {
    /// What an empty list derefs to.
    const EMPTY: &'static Vec<T> = &Vec::new();
}

impl<T: 'static> Deref for SharedList<T> {
    type Target = Vec<T>;

    fn deref(&self) -> &Vec<T> {
        self.0.as_deref().unwrap_or(Self::EMPTY)
    }
}

impl<T: Clone + 'static> DerefMut for SharedList<T> {
    /// The list to change; copied first when a clone shares it.
    fn deref_mut(&mut self) -> &mut Vec<T> {
        Arc::make_mut(self.0.get_or_insert_with(Default::default))
    }
}

impl<T: PartialEq + 'static> PartialEq for SharedList<T> {
    fn eq(&self, other: &SharedList<T>) -> bool {
        **self == **other
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for SharedList<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<T> From<Vec<T>> for SharedList<T> {
    fn from(items: Vec<T>) -> Self {
        SharedList(Some(Arc::new(items)))
    }
}

impl<T: Clone> From<SharedList<T>> for Vec<T> {
    fn from(list: SharedList<T>) -> Self {
        list.into_vec()
    }
}

impl<T> FromIterator<T> for SharedList<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        SharedList::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl<T: Clone + 'static> Extend<T> for SharedList<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.deref_mut().extend(iter);
    }
}

impl<T: Clone> IntoIterator for SharedList<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl<'a, T: 'static> IntoIterator for &'a SharedList<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: PartialEq + 'static> PartialEq<Vec<T>> for SharedList<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        **self == *other
    }
}

impl<T: PartialEq + 'static> PartialEq<[T]> for SharedList<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.as_slice() == other
    }
}

impl<T: PartialEq + 'static, const N: usize> PartialEq<[T; N]> for SharedList<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        self.as_slice() == other
    }
}

impl<T: Serialize + 'static> Serialize for SharedList<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for SharedList<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(deserializer).map(SharedList::from)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Message, Messages};

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
