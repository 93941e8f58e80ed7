//! [`ToolErrorHandler`]: turns a tool's failure into the result the model reads.

use std::sync::Arc;

use super::{Hook, Middleware, ToolNext};
use crate::message::ToolCall;
use crate::tool::{ToolCallError, ToolOutput, ToolRuntime};

/// What to tell the model about a failed call, or `None` to leave the failure as it is.
pub type HandleError = dyn Fn(&ToolCall, &ToolCallError) -> Option<String> + Send + Sync;

/// Turns tool failures into ordinary results with the text a handler writes (LangChain's
/// `handle_tool_errors`). A handled failure is a success for the loop: it does not count
/// against the tool's retry budget, and [`ToolErrorPolicy::Propagate`](crate::agent::ToolErrorPolicy::Propagate)
/// does not stop the run for it.
///
/// ```
/// use agentry::middleware::ToolErrorHandler;
///
/// let handler = ToolErrorHandler::new(|call, error| {
///     Some(format!("{} is unavailable right now ({error}); answer without it", call.name))
/// });
/// # let _ = handler;
/// ```
#[derive(Clone)]
pub struct ToolErrorHandler {
    handle: Arc<HandleError>,
}

impl ToolErrorHandler {
    /// Handles failures with `handle`.
    pub fn new(
        handle: impl Fn(&ToolCall, &ToolCallError) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        ToolErrorHandler {
            handle: Arc::new(handle),
        }
    }

    /// Sends every failure as `message`.
    pub fn always(message: impl Into<String>) -> Self {
        let message = message.into();
        ToolErrorHandler::new(move |_, _| Some(message.clone()))
    }
}

impl std::fmt::Debug for ToolErrorHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToolErrorHandler(..)")
    }
}

impl<C, S> Middleware<C, S> for ToolErrorHandler
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    fn name(&self) -> &str {
        "ToolErrorHandler"
    }

    fn wrap_tool_call<'a>(
        &'a self,
        call: ToolCall,
        _runtime: &'a ToolRuntime<C, S>,
        next: ToolNext<'a, C, S>,
    ) -> Hook<'a, Result<ToolOutput, ToolCallError>> {
        Hook::boxed(async move {
            let original = call.clone();
            match next.run(call).await {
                Err(error) => match (self.handle)(&original, &error) {
                    Some(text) => Ok(ToolOutput::text(text)),
                    None => Err(error),
                },
                ok => ok,
            }
        })
    }
}
