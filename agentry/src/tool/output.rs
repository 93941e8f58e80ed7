//! What a tool returns: content for the model, and optionally an artifact for the program.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use crate::message::ContentBlock;

/// The result of a successful tool call.
#[derive(Clone, Debug)]
pub struct ToolOutput {
    /// What the model sees.
    pub content: Vec<ContentBlock>,
    /// A value the program keeps and the model never sees (e.g. the full rows behind a summary).
    pub artifact: Option<Artifact>,
}

impl ToolOutput {
    /// Text content, no artifact.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![ContentBlock::text(text)],
            artifact: None,
        }
    }

    /// The text blocks of the content, joined.
    pub fn text_content(&self) -> String {
        self.content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect()
    }

    /// The artifact, if it is a `T`.
    pub fn artifact<T: Any>(&self) -> Option<&T> {
        self.artifact.as_ref()?.downcast_ref()
    }
}

/// A value of any type kept beside a tool's content.
#[derive(Clone)]
pub struct Artifact {
    value: Arc<dyn Any + Send + Sync>,
    type_name: &'static str,
}

impl Artifact {
    /// Wraps a value.
    pub fn new<T: Any + Send + Sync>(value: T) -> Self {
        Artifact {
            value: Arc::new(value),
            type_name: std::any::type_name::<T>(),
        }
    }

    /// The value, if it is a `T`.
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        self.value.downcast_ref()
    }

    /// The Rust type name of the value.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }
}

impl fmt::Debug for Artifact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Artifact<{}>", self.type_name)
    }
}

/// A tool return value split in two: `content` goes to the model, `artifact` stays with the
/// program (LangChain's `response_format="content_and_artifact"`).
///
/// ```
/// use agentry::{WithArtifact, tool::IntoToolOutput};
///
/// let out = WithArtifact::new("3 rows found", vec![1, 2, 3]).into_tool_output().unwrap();
/// assert_eq!(out.text_content(), "3 rows found");
/// assert_eq!(out.artifact::<Vec<i32>>(), Some(&vec![1, 2, 3]));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct WithArtifact<T, A> {
    /// What the model sees.
    pub content: T,
    /// What the program keeps.
    pub artifact: A,
}

impl<T, A> WithArtifact<T, A> {
    /// Content and artifact.
    pub fn new(content: T, artifact: A) -> Self {
        WithArtifact { content, artifact }
    }
}

/// Turns a tool's return value into [`ToolOutput`].
///
/// Any `T: Serialize` works: a value that serializes to a JSON string (a `String`, a `&str`,
/// a unit enum variant) is sent as that text; anything else is sent as JSON text.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a tool",
    label = "the model must receive this value as text",
    note = "derive `serde::Serialize` for `{Self}` (`use agentry::prelude::*` brings the derive), or return a `String`, `agentry::WithArtifact<T, A>` or `agentry::ToolOutput`"
)]
pub trait IntoToolOutput {
    /// The conversion; fails only when serialization fails.
    fn into_tool_output(self) -> Result<ToolOutput, ToolError>;
}

#[diagnostic::do_not_recommend]
impl<T: Serialize> IntoToolOutput for T {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        let value = serde_json::to_value(&self).map_err(|e| {
            ToolError::new(format!("the tool's result could not be serialized: {e}"))
        })?;
        Ok(match value {
            serde_json::Value::String(text) => ToolOutput::text(text),
            other => ToolOutput::text(other.to_string()),
        })
    }
}

impl IntoToolOutput for ToolOutput {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(self)
    }
}

impl<T: IntoToolOutput, A: Any + Send + Sync> IntoToolOutput for WithArtifact<T, A> {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        let mut out = self.content.into_tool_output()?;
        out.artifact = Some(Artifact::new(self.artifact));
        Ok(out)
    }
}

/// Turns what a tool function returns — `T` or `Result<T, E>` — into a tool result.
///
/// `#[tool]` wraps a return type that is not written as `Result<..>` in
/// `Ok::<_, Infallible>`, so this trait only needs the `Result` case.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the result of a tool",
    label = "returned by the tool function",
    note = "return `T` or `Result<T, E>` where `T: serde::Serialize` (a `String` is sent as text) and `E: std::fmt::Display` (the message the model sees)"
)]
pub trait IntoToolResult {
    /// The conversion.
    fn into_tool_result(self) -> Result<ToolOutput, ToolError>;
}

impl<T: IntoToolOutput, E: ToolErrorMessage> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<ToolOutput, ToolError> {
        match self {
            Ok(v) => v.into_tool_output(),
            Err(e) => Err(ToolError::new(e.to_string())),
        }
    }
}

/// The error type of a tool returning `Result<T, E>`: any `E: Display`, whose text is the
/// message the model reads. A trait of its own so that an error type without `Display` is
/// told what the text is for and how to give it one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's error: the model reads a failed call as text, and `{Self}` does not implement `Display`",
    label = "the error type of this tool",
    note = "implement `std::fmt::Display` for `{Self}` (with `thiserror`: `#[derive(thiserror::Error)] #[error(\"..\")]`), or return `Result<T, String>` or `Result<T, agentry::ToolError>`"
)]
pub trait ToolErrorMessage: fmt::Display {}

#[diagnostic::do_not_recommend]
impl<E: fmt::Display> ToolErrorMessage for E {}

/// An error a tool returned, as the model will read it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    /// The model-facing message.
    pub message: String,
}

impl ToolError {
    /// An error with a model-facing message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
        }
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        ToolError::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        ToolError::new(message)
    }
}

/// Converts what a `#[tool]` function returned into the tool's result. Used by `#[tool]`
/// (errors about a return type that cannot be a tool result name it); public as
/// `__private::tool_result`.
pub fn tool_result<R: IntoToolResult>(
    tool: &str,
    out: R,
) -> Result<ToolOutput, super::ToolCallError> {
    out.into_tool_result()
        .map_err(|source| super::ToolCallError::Failed {
            tool: tool.to_string(),
            source,
        })
}
