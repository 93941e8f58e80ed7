//! The error for a schema a dialect cannot represent.

use super::Dialect;

/// A schema (or part of one) that a provider's dialect cannot represent.
///
/// Returned before any request is made; the SDK never silently rewrites a schema into one
/// that accepts different values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "schema not representable in the {dialect} dialect at {}: {reason}",
    location(path)
)]
pub struct SchemaError {
    /// The dialect that cannot represent the schema.
    pub dialect: Dialect,
    /// A JSON pointer into the canonical schema (`""` for the root).
    pub path: String,
    /// What is wrong and, where possible, what to do instead.
    pub reason: String,
}

fn location(path: &str) -> String {
    if path.is_empty() {
        "the root".to_string()
    } else {
        format!("`{path}`")
    }
}

impl SchemaError {
    /// A new error.
    pub fn new(dialect: Dialect, path: impl Into<String>, reason: impl Into<String>) -> Self {
        SchemaError {
            dialect,
            path: path.into(),
            reason: reason.into(),
        }
    }
}
