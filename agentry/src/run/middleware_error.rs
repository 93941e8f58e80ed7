//! [`MiddlewareError`]: a middleware stopped the run (one cause of a
//! [`RunError`](super::RunError)).

use std::error::Error;
use std::fmt;
use std::sync::Arc;

/// A middleware stopped the run.
///
/// Its `Display` is the middleware's name and its message; the error that made the
/// middleware stop, when there is one ([`with_source`](Self::with_source)), is its
/// [`source`](Error::source), typed:
///
/// ```
/// use std::error::Error as _;
/// use agentry::middleware::MiddlewareError;
///
/// let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no rules file");
/// let err = MiddlewareError::new("Rules", "could not load the rules").with_source(io);
/// assert_eq!(err.to_string(), "middleware `Rules` stopped the run: could not load the rules");
/// let cause = err.source().unwrap().downcast_ref::<std::io::Error>().unwrap();
/// assert_eq!(cause.kind(), std::io::ErrorKind::NotFound);
/// ```
#[derive(Clone, Debug)]
pub struct MiddlewareError {
    /// The middleware's name.
    pub middleware: String,
    /// Why.
    pub message: String,
    /// The error that made the middleware stop (shared, so that the error stays `Clone`).
    source: Option<Arc<dyn Error + Send + Sync>>,
}

impl MiddlewareError {
    /// An error from the middleware `name`.
    pub fn new(middleware: impl Into<String>, message: impl Into<String>) -> Self {
        MiddlewareError {
            middleware: middleware.into(),
            message: message.into(),
            source: None,
        }
    }

    /// The same error, caused by `source` (returned by [`Error::source`], typed). Keep
    /// `message` about what the middleware was doing; the cause's own message is in the
    /// chain.
    pub fn with_source(mut self, source: impl Error + Send + Sync + 'static) -> Self {
        self.source = Some(Arc::new(source));
        self
    }
}

impl fmt::Display for MiddlewareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "middleware `{}` stopped the run: {}",
            self.middleware, self.message
        )
    }
}

impl Error for MiddlewareError {
    /// The cause itself, not the `Arc` holding it, so that `downcast_ref` finds its type.
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn Error + 'static))
    }
}

/// Two errors are equal when their middleware and message are (causes are not compared).
impl PartialEq for MiddlewareError {
    fn eq(&self, other: &Self) -> bool {
        self.middleware == other.middleware && self.message == other.message
    }
}

impl Eq for MiddlewareError {}
