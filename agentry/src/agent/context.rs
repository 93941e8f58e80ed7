//! What a run accepts as its context: the agent's context type, or an `Arc` of it.

use std::sync::Arc;

/// A value a run accepts as its context: the agent's context type `C` itself, or an
/// `Arc<C>` already shared elsewhere (no copy is made).
///
/// Every run method ([`Agent::run`](super::Agent::run), `stream`, `resume`, a thread's `run`,
/// …) takes `impl IntoContext<C>`, so a value of the wrong type is one error naming both types.
///
/// ```
/// use std::sync::Arc;
/// use agentry::agent::IntoContext;
///
/// struct User {
///     id: u64,
/// }
///
/// let owned = IntoContext::<User>::into_context(User { id: 7 });
/// let shared = Arc::new(User { id: 8 });
/// let same = IntoContext::<User>::into_context(shared.clone());
/// assert_eq!(owned.id, 7);
/// assert!(Arc::ptr_eq(&same, &shared));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not this agent's context: the agent's context is `{C}`",
    label = "expected `{C}` or `Arc<{C}>` here",
    note = "a run takes the context type the agent declares (`#[agent(context = {C})]`, or `()` when it declares none): pass a `{C}` or an `Arc<{C}>`"
)]
pub trait IntoContext<C> {
    /// The context, shared.
    fn into_context(self) -> Arc<C>;
}

impl<C> IntoContext<C> for C {
    #[inline]
    fn into_context(self) -> Arc<C> {
        Arc::new(self)
    }
}

impl<C> IntoContext<C> for Arc<C> {
    #[inline]
    fn into_context(self) -> Arc<C> {
        self
    }
}

/// The stand-in context of an agent declared with a borrowed context (`context = &str`), which
/// `#[agent]` already reports as a compile error: a run takes any reference for it, so a run
/// passing a local borrow adds no "does not live long enough" to that error. Used only by
/// `#[agent]`'s expansions (`__private::agent`).
#[doc(hidden)]
#[derive(Debug)]
pub struct BorrowedContext;

// Never offered as a hint when another value is not the agent's context.
#[diagnostic::do_not_recommend]
impl<T: ?Sized> IntoContext<BorrowedContext> for &T {
    fn into_context(self) -> Arc<BorrowedContext> {
        Arc::new(BorrowedContext)
    }
}
