//! [`PartialOutput`]: the structured output so far, shared with the parser that builds it.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde_json::Value;

use super::parse::WRAPPER_KEY;

/// The structured output received so far (complete fields, strings so far), not validated.
///
/// It shares the parser's value instead of copying it, so streaming an answer costs time
/// linear in its length however many deltas it comes in; it dereferences to the bare
/// [`Value`] (a wrapped non-object output is unwrapped). Cloning it is O(1); keep
/// [`to_value`](Self::to_value) for a copy that outlives the stream.
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
#[derive(Clone)]
pub struct PartialOutput {
    root: Arc<Value>,
    wrapped: bool,
}

impl PartialOutput {
    /// The partial value `root`, as it is.
    pub fn new(root: Arc<Value>) -> Self {
        PartialOutput {
            root,
            wrapped: false,
        }
    }

    /// The value under the wrapper key of a wrapped output (`{"value": ...}`), or `None`
    /// before it starts.
    pub(crate) fn unwrapping(root: Arc<Value>) -> Option<Self> {
        root.get(WRAPPER_KEY)?;
        Some(PartialOutput {
            root,
            wrapped: true,
        })
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
}

impl Deref for PartialOutput {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.value()
    }
}

impl fmt::Debug for PartialOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.value(), f)
    }
}

impl fmt::Display for PartialOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.value(), f)
    }
}

impl PartialEq for PartialOutput {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value()
    }
}

impl PartialEq<Value> for PartialOutput {
    fn eq(&self, other: &Value) -> bool {
        self.value() == other
    }
}

impl From<PartialOutput> for Value {
    fn from(partial: PartialOutput) -> Value {
        partial.to_value()
    }
}
