//! [`GuardReason`]: a guardrail's typed reason for blocking, as a run error carries it.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// Why a guardrail blocked: the guardrail's own reason value (its `Reason` type), kept
/// typed behind a shared pointer, so a caller can read it back with
/// [`downcast_ref`](GuardReason::downcast_ref). It displays as the reason does.
///
/// Carried by [`RunErrorKind::Guardrail`](crate::agent::RunErrorKind::Guardrail) and
/// [`ToolCallError::Blocked`](crate::ToolCallError::Blocked). Two reasons are equal when they
/// display the same (the value behind them need not be comparable).
///
/// ```
/// use agentry::guard::GuardReason;
///
/// #[derive(Debug, PartialEq)]
/// struct TooLong { chars: usize }
/// impl std::fmt::Display for TooLong {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         write!(f, "{} characters", self.chars)
///     }
/// }
///
/// let reason = GuardReason::new(TooLong { chars: 9000 });
/// assert_eq!(reason.to_string(), "9000 characters");
/// assert_eq!(reason.downcast_ref::<TooLong>(), Some(&TooLong { chars: 9000 }));
/// assert_eq!(reason.downcast_ref::<String>(), None);
/// ```
#[derive(Clone)]
pub struct GuardReason(Arc<dyn Reason>);

/// What a reason is to the run: shown, logged, read back by type.
trait Reason: fmt::Display + fmt::Debug + Send + Sync + 'static {
    fn as_any(&self) -> &dyn Any;
}

impl<R: fmt::Display + fmt::Debug + Send + Sync + 'static> Reason for R {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl GuardReason {
    /// Wraps a guardrail's reason.
    pub fn new<R: fmt::Display + fmt::Debug + Send + Sync + 'static>(reason: R) -> Self {
        GuardReason(Arc::new(reason))
    }

    /// The reason as the guardrail gave it, if it is an `R`.
    pub fn downcast_ref<R: 'static>(&self) -> Option<&R> {
        // Through the pointer: `Arc<dyn Reason>` is a `Reason` itself.
        (*self.0).as_any().downcast_ref::<R>()
    }
}

impl fmt::Display for GuardReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl fmt::Debug for GuardReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl PartialEq for GuardReason {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.to_string() == other.to_string()
    }
}

impl Eq for GuardReason {}
