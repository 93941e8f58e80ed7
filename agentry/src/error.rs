//! The crate-wide error type.

use crate::agent::RunError;
use crate::model::ModelError;
use crate::schema::SchemaError;
use crate::tool::ToolCallError;

/// Everything that can go wrong in the SDK, by cause.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A schema cannot be expressed in a provider's dialect.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// A tool call could not be completed.
    #[error(transparent)]
    ToolCall(#[from] ToolCallError),
    /// An agent run failed (the error carries the partial transcript).
    #[error(transparent)]
    Agent(#[from] RunError),
    /// A model could not be configured or a request failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A structured-output call gave no valid value.
    #[error(transparent)]
    Structured(#[from] crate::output::StructuredError),
    /// A value could not be serialized or deserialized.
    #[error("JSON error: {0}")]
    Json(#[from] serde_json::Error),
}

/// `Result` with the SDK's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
