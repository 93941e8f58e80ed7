//! [`MiddlewareError`]: a middleware stopped the run (one cause of a
//! [`RunError`](super::RunError)).

/// A middleware stopped the run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("middleware `{middleware}` stopped the run: {message}")]
pub struct MiddlewareError {
    /// The middleware's name.
    pub middleware: String,
    /// Why.
    pub message: String,
}

impl MiddlewareError {
    /// An error from the middleware `name`.
    pub fn new(middleware: impl Into<String>, message: impl Into<String>) -> Self {
        MiddlewareError {
            middleware: middleware.into(),
            message: message.into(),
        }
    }
}
