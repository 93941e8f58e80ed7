//! [`Hook`]: what a hook returns — a value at once, or a future.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::future::BoxFuture;

/// The result of a hook: ready at once (no allocation — what every default hook returns), or
/// a boxed future for hooks that do I/O.
///
/// ```
/// use agentry::middleware::Hook;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let now: Hook<'_, u32> = Hook::ready(1);
/// let later: Hook<'_, u32> = Hook::boxed(async { 2 });
/// assert_eq!(now.await + later.await, 3);
/// # });
/// ```
#[must_use = "a hook does nothing unless awaited"]
pub struct Hook<'a, T>(Inner<'a, T>);

/// Private, so that no hook can be made empty (a `Ready(None)` would have nothing to return).
enum Inner<'a, T> {
    /// The value, available now (taken on the first poll).
    Ready(Option<T>),
    /// A future computing the value.
    Boxed(BoxFuture<'a, T>),
}

impl<'a, T> Hook<'a, T> {
    /// A value available now.
    pub fn ready(value: T) -> Self {
        Hook(Inner::Ready(Some(value)))
    }

    /// A future computing the value.
    pub fn boxed(future: impl Future<Output = T> + Send + 'a) -> Self {
        Hook(Inner::Boxed(Box::pin(future)))
    }

    /// An already boxed future computing the value.
    pub(crate) fn from_box(future: BoxFuture<'a, T>) -> Self {
        Hook(Inner::Boxed(future))
    }
}

// `T` is moved out of the `Option`, never pinned, so the hook is `Unpin` whatever `T` is.
impl<T> Unpin for Hook<'_, T> {}

impl<T> Future for Hook<'_, T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        match &mut self.get_mut().0 {
            Inner::Ready(value) => match value.take() {
                Some(value) => Poll::Ready(value),
                None => panic!("`Hook` polled after it completed"),
            },
            Inner::Boxed(future) => future.as_mut().poll(cx),
        }
    }
}

impl<T> std::fmt::Debug for Hook<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Inner::Ready(_) => f.write_str("Hook::Ready(..)"),
            Inner::Boxed(_) => f.write_str("Hook::Boxed(..)"),
        }
    }
}
