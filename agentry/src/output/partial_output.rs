//! [`PartialOutput`]: the structured output so far, shared with the parser that builds it.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;

use serde_json::Value;

use super::parse::WRAPPER_KEY;
use super::partial::PartialJson;
use super::typed_partial::{HasPartial, OpenSeg, Partial};
use super::validate::{Validation, ValidationError};

/// The structured output so far (complete fields, strings so far), as JSON and, for a type
/// with a [typed partial](HasPartial), as its `Partial<T>` mirror.
///
/// It shares the parser's value instead of copying it, so streaming an answer costs time
/// linear in its length however many deltas it comes in; it dereferences to the bare
/// [`Value`] (a wrapped non-object output is unwrapped). Cloning it is O(1); keep
/// [`to_value`](Self::to_value) for a copy that outlives the stream. The typed mirror
/// ([`typed`](Self::typed)) and the constraint check of the complete fields
/// ([`check`](Self::check)) are computed when asked for, from the shared value.
///
/// ```
/// use agentry::output::{PartialJson, PartialOutput};
/// use serde_json::json;
///
/// let mut parser = PartialJson::new();
/// parser.push(r#"{"title": "Dun"#).unwrap();
/// let partial = PartialOutput::new(parser.shared().unwrap());
/// assert_eq!(partial["title"], "Dun");
/// assert_eq!(partial, json!({"title": "Dun"}));
/// ```
pub struct PartialOutput<T = Value> {
    root: Arc<Value>,
    wrapped: bool,
    open: Open,
    output: PhantomData<fn() -> T>,
}

/// What of the value is still being received.
#[derive(Clone)]
enum Open {
    /// Nothing: the value is complete.
    Complete,
    /// The path to the innermost value still being received (everything off it is complete).
    Path(Arc<[OpenSeg]>),
    /// Not known (a value given by hand): no part of it is taken as complete.
    Unknown,
}

impl PartialOutput<Value> {
    /// The partial value `root`, as it is. Which of its parts are complete is not known, so
    /// [`check`](Self::check) finds nothing in it.
    pub fn new(root: Arc<Value>) -> Self {
        PartialOutput {
            root,
            wrapped: false,
            open: Open::Unknown,
            output: PhantomData,
        }
    }
}

impl<T> PartialOutput<T> {
    /// The value so far of `parser`, under the wrapper key of a wrapped output (`None`
    /// before it starts), with what of it is still being received.
    pub(crate) fn tapped(parser: &PartialJson, wrapped: bool) -> Option<Self> {
        let root = parser.shared()?;
        if wrapped {
            root.get(WRAPPER_KEY)?;
        }
        let open = match parser.open_path() {
            None => Open::Complete,
            Some(path) if wrapped => match path.split_first() {
                Some((OpenSeg::Key(key), rest)) if key == WRAPPER_KEY => Open::Path(rest.into()),
                // The wrapper is open, its value is not.
                _ => Open::Complete,
            },
            Some(path) => Open::Path(path.into()),
        };
        Some(PartialOutput {
            root,
            wrapped,
            open,
            output: PhantomData,
        })
    }

    /// The same value, as the partial of another type (a sub-agent's, erased).
    pub(crate) fn retype<U>(self) -> PartialOutput<U> {
        PartialOutput {
            root: self.root,
            wrapped: self.wrapped,
            open: self.open,
            output: PhantomData,
        }
    }

    /// The value so far.
    pub fn value(&self) -> &Value {
        if self.wrapped {
            self.root.get(WRAPPER_KEY).unwrap_or(&Value::Null)
        } else {
            &self.root
        }
    }

    /// A copy of the value so far.
    pub fn to_value(&self) -> Value {
        self.value().clone()
    }

    /// Whether the whole value has been received.
    pub fn is_complete(&self) -> bool {
        matches!(self.open, Open::Complete)
    }
}

impl<T: HasPartial> PartialOutput<T> {
    /// The typed mirror of the value so far (`PlanPartial` for a `Plan` deriving
    /// `StructuredOutput`: every field an `Option`, strings so far, nested outputs partial
    /// too); `None` when the value so far does not have the output's shape.
    ///
    /// Built from the shared value when called, in time linear in the value's size.
    pub fn typed(&self) -> Option<Partial<T>> {
        T::partial(self.value())
    }

    /// Checks the output's constraints (`#[output(range(..))]`, lengths, patterns, custom
    /// validators) on the fields that are complete: a field's violation is reported by the
    /// first partial after that field completes. The final value is still validated whole.
    pub fn check(&self) -> Result<(), ValidationError> {
        let mut v = Validation::new();
        match &self.open {
            Open::Complete => T::check_partial(self.value(), None, &mut v),
            Open::Path(path) => T::check_partial(self.value(), Some(path), &mut v),
            Open::Unknown => {}
        }
        v.finish()
    }
}

impl<T> Clone for PartialOutput<T> {
    fn clone(&self) -> Self {
        PartialOutput {
            root: Arc::clone(&self.root),
            wrapped: self.wrapped,
            open: self.open.clone(),
            output: PhantomData,
        }
    }
}

impl<T> Deref for PartialOutput<T> {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.value()
    }
}

impl<T> fmt::Debug for PartialOutput<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.value(), f)
    }
}

impl<T> fmt::Display for PartialOutput<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.value(), f)
    }
}

impl<T, U> PartialEq<PartialOutput<U>> for PartialOutput<T> {
    fn eq(&self, other: &PartialOutput<U>) -> bool {
        self.value() == other.value()
    }
}

impl<T> PartialEq<Value> for PartialOutput<T> {
    fn eq(&self, other: &Value) -> bool {
        self.value() == other
    }
}

impl<T> From<PartialOutput<T>> for Value {
    fn from(partial: PartialOutput<T>) -> Value {
        partial.to_value()
    }
}
