//! [`CostError`]: a cost that could not be computed, a price table that could not be loaded.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

/// Why a cost could not be computed or a table not loaded.
///
/// A table that could not be read or parsed keeps the `io::Error` or serde's error as its
/// [`source`](Error::source), typed (shared, so that the error stays `Clone`). Two errors are
/// equal when their variants and messages are.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum CostError {
    /// The table has no price for a model that was used.
    Unpriced {
        /// The model, as the provider reported it.
        model: String,
    },
    /// A price is negative or not a number.
    InvalidPrice {
        /// The model.
        model: String,
    },
    /// The file could not be read.
    Read {
        /// The file.
        path: String,
        /// Why (the `io::Error`'s message).
        message: String,
        /// The `io::Error`.
        source: Arc<std::io::Error>,
    },
    /// The text is not a price table.
    Parse {
        /// serde's message.
        message: String,
        /// serde's error.
        source: Arc<serde_json::Error>,
    },
}

impl CostError {
    pub(super) fn read(path: &std::path::Path, source: std::io::Error) -> Self {
        CostError::Read {
            path: path.display().to_string(),
            message: source.to_string(),
            source: Arc::new(source),
        }
    }

    pub(super) fn parse(source: serde_json::Error) -> Self {
        CostError::Parse {
            message: source.to_string(),
            source: Arc::new(source),
        }
    }
}

impl fmt::Display for CostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CostError::Unpriced { model } => {
                write!(f, "no price for model `{model}` in the price table")
            }
            CostError::InvalidPrice { model } => {
                write!(
                    f,
                    "the price of model `{model}` is negative or not a number"
                )
            }
            CostError::Read { path, message, .. } => {
                write!(f, "could not read the price table {path}: {message}")
            }
            CostError::Parse { message, .. } => write!(f, "invalid price table: {message}"),
        }
    }
}

impl Error for CostError {
    /// The cause itself, not the `Arc` holding it, so that `downcast_ref` finds its type.
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            CostError::Read { source, .. } => Some(&**source),
            CostError::Parse { source, .. } => Some(&**source),
            CostError::Unpriced { .. } | CostError::InvalidPrice { .. } => None,
        }
    }
}

impl PartialEq for CostError {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (CostError::Unpriced { model: a }, CostError::Unpriced { model: b })
            | (CostError::InvalidPrice { model: a }, CostError::InvalidPrice { model: b }) => {
                a == b
            }
            (
                CostError::Read {
                    path: a,
                    message: m,
                    ..
                },
                CostError::Read {
                    path: b,
                    message: n,
                    ..
                },
            ) => a == b && m == n,
            (CostError::Parse { message: a, .. }, CostError::Parse { message: b, .. }) => a == b,
            _ => false,
        }
    }
}
