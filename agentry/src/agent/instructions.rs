//! The system prompt: fixed text, or a function of the run's context and state.

use std::fmt;
use std::sync::Arc;

/// A function computing instructions from the context and state.
pub type InstructionsFn<C, S> = dyn Fn(&C, &S) -> String + Send + Sync;

/// An agent's instructions (its system message), rebuilt before each request so a dynamic
/// prompt sees the current state.
pub enum Instructions<C, S> {
    /// No system message.
    None,
    /// Fixed text (what a doc comment on `#[agent]` becomes).
    Static(Arc<str>),
    /// Text computed from the context and the current state.
    Dynamic(Arc<InstructionsFn<C, S>>),
}

impl<C, S> Instructions<C, S> {
    /// Fixed text; empty text means no system message.
    pub fn text(text: impl Into<Arc<str>>) -> Self {
        let text = text.into();
        if text.trim().is_empty() {
            Instructions::None
        } else {
            Instructions::Static(text)
        }
    }

    /// Text computed from the context and state before each request.
    pub fn dynamic(f: impl Fn(&C, &S) -> String + Send + Sync + 'static) -> Self {
        Instructions::Dynamic(Arc::new(f))
    }

    pub(crate) fn render(&self, context: &C, state: &S) -> Option<String> {
        match self {
            Instructions::None => None,
            // Not `to_string`, which goes through `Display` for an `Arc<str>`.
            Instructions::Static(text) => Some(String::from(&**text)),
            Instructions::Dynamic(f) => Some(f(context, state)),
        }
    }

    pub(crate) fn is_dynamic(&self) -> bool {
        matches!(self, Instructions::Dynamic(_))
    }
}

/// Text an agent's fixed instructions can be made of ([`AgentBuilder::instructions`]):
/// `&str`, `String`, `Arc<str>`, `Box<str>`, `Cow<str>`.
///
/// [`AgentBuilder::instructions`]: super::AgentBuilder::instructions
///
/// ```
/// use agentry::agent::{AgentBuilder, NoTools};
/// use agentry::testing::ScriptedModel;
///
/// let rules = String::from("Answer in French.");
/// let _agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([]), NoTools)
///     .instructions(rules)
///     .build();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not text for an agent's instructions",
    label = "`instructions` takes fixed text",
    note = "pass text (`&str`, `String`, `Arc<str>`); for instructions computed before each request from the context and state, use `.dynamic_instructions(|context, state| ..)`"
)]
pub trait InstructionsText {
    /// The text, shared.
    fn into_text(self) -> Arc<str>;
}

impl InstructionsText for &str {
    fn into_text(self) -> Arc<str> {
        self.into()
    }
}

impl InstructionsText for &String {
    fn into_text(self) -> Arc<str> {
        self.as_str().into()
    }
}

impl InstructionsText for String {
    fn into_text(self) -> Arc<str> {
        self.into()
    }
}

impl InstructionsText for Arc<str> {
    fn into_text(self) -> Arc<str> {
        self
    }
}

impl InstructionsText for Box<str> {
    fn into_text(self) -> Arc<str> {
        self.into()
    }
}

impl InstructionsText for std::borrow::Cow<'_, str> {
    fn into_text(self) -> Arc<str> {
        self.into()
    }
}

impl<C, S> Clone for Instructions<C, S> {
    fn clone(&self) -> Self {
        match self {
            Instructions::None => Instructions::None,
            Instructions::Static(t) => Instructions::Static(Arc::clone(t)),
            Instructions::Dynamic(f) => Instructions::Dynamic(Arc::clone(f)),
        }
    }
}

impl<C, S> fmt::Debug for Instructions<C, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Instructions::None => f.write_str("None"),
            Instructions::Static(t) => f.debug_tuple("Static").field(t).finish(),
            Instructions::Dynamic(_) => f.write_str("Dynamic(..)"),
        }
    }
}
