//! [`ToolSelector`]: offers each request only the tools that matter for it.

use std::sync::Arc;

use super::{BeforeModel, Flow, Hook, Middleware, MiddlewareError, RunCx};

/// Decides whether the tool named by the first argument is offered in this request.
pub type SelectTool<C, S> = dyn Fn(&str, &BeforeModel, &RunCx<'_, C, S>) -> bool + Send + Sync;

/// Per-request tool selection: before each request, a function of the tool name, the
/// request, the context and the state decides which tools are offered (LangChain's
/// `LLMToolSelectorMiddleware` asks a model; here you decide how, e.g. by keywords of the last
/// user message or by the user's permissions). A call of a tool that was not offered is still
/// dispatched if the agent has the tool.
///
/// ```
/// use agentry::middleware::ToolSelector;
///
/// struct User { admin: bool }
/// let selector = ToolSelector::<User, ()>::new(|tool, _request, cx| {
///     tool != "delete_account" || cx.context().admin
/// });
/// # let _ = selector;
/// ```
pub struct ToolSelector<C, S> {
    keep: Arc<SelectTool<C, S>>,
}

impl<C, S> ToolSelector<C, S> {
    /// Keeps the tools `keep` accepts.
    pub fn new(
        keep: impl Fn(&str, &BeforeModel, &RunCx<'_, C, S>) -> bool + Send + Sync + 'static,
    ) -> Self {
        ToolSelector {
            keep: Arc::new(keep),
        }
    }
}

impl<C, S> std::fmt::Debug for ToolSelector<C, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ToolSelector(..)")
    }
}

impl<C, S> Middleware<C, S> for ToolSelector<C, S>
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    fn name(&self) -> &str {
        "ToolSelector"
    }

    fn before_model<'a>(
        &'a self,
        request: &'a mut BeforeModel,
        cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        let tools = std::mem::take(&mut request.tools);
        let kept = tools
            .into_iter()
            .filter(|t| (self.keep)(&t.name, request, cx))
            .collect();
        request.tools = kept;
        Hook::ready(Ok(Flow::Continue))
    }
}
