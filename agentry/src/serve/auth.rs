//! Who sends a request: [`Authenticate`] builds the caller (a user id and the agent's typed
//! context) from the request's head.

use std::future::Future;
use std::sync::Arc;

use axum::http::{HeaderMap, Method, Uri};
use futures::future::BoxFuture;

use super::ServeError;
use crate::agent::IntoContext;

/// The head of a request, for [`Authenticate`]: owned, so an async check can keep it.
#[derive(Clone, Debug)]
pub struct RequestHead {
    /// The method.
    pub method: Method,
    /// The URI.
    pub uri: Uri,
    /// The headers.
    pub headers: HeaderMap,
}

impl RequestHead {
    /// The token of an `Authorization: Bearer <token>` header.
    pub fn bearer(&self) -> Option<&str> {
        let value = self.headers.get(axum::http::header::AUTHORIZATION)?;
        let value = value.to_str().ok()?;
        let (scheme, token) = value.split_once(' ')?;
        scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| token.trim())
            .filter(|t| !t.is_empty())
    }
}

/// Who sends a request: the user a thread belongs to, and the agent's typed context for the
/// run (the `ctx: Context<C>` of its tools).
pub struct Caller<C> {
    /// The user's id. A thread belongs to the user who created it; another user's request for
    /// it is refused (403).
    pub user: String,
    /// The agent's context for this request's run.
    pub context: Arc<C>,
}

impl<C> Caller<C> {
    /// User `user` with `context`.
    pub fn new(user: impl Into<String>, context: impl IntoContext<C>) -> Self {
        Caller {
            user: user.into(),
            context: context.into_context(),
        }
    }
}

/// Builds the [`Caller`] of a request: any `Fn(RequestHead) -> impl Future<Output =
/// Result<Caller<C>, ServeError>>` (a closure or an async fn). Refuse with
/// [`ServeError::Unauthorized`] (401).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot authenticate requests for an agent with context `{C}`",
    label = "not an authentication function",
    note = "pass a function `|head: RequestHead| async move {{ Ok(Caller::new(user_id, context)) }}` returning `Result<Caller<{C}>, ServeError>`, or `serve::anonymous()` for a context with `Default`"
)]
pub trait Authenticate<C>: Send + Sync + 'static {
    /// The caller of the request with this head.
    fn authenticate(&self, head: RequestHead) -> BoxFuture<'static, Result<Caller<C>, ServeError>>;
}

impl<C, F, Fut> Authenticate<C> for F
where
    F: Fn(RequestHead) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Caller<C>, ServeError>> + Send + 'static,
{
    fn authenticate(&self, head: RequestHead) -> BoxFuture<'static, Result<Caller<C>, ServeError>> {
        Box::pin(self(head))
    }
}

/// Every request comes from the user `anonymous`, with `C::default()` as the context: for
/// demos and local tools only (every thread belongs to everyone).
pub fn anonymous<C: Default + Send + Sync + 'static>() -> impl Authenticate<C> {
    |_head: RequestHead| async { Ok(Caller::new("anonymous", C::default())) }
}
