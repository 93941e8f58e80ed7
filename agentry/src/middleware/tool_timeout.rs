//! [`ToolTimeout`]: a time limit per tool call.

use std::time::Duration;

use super::{Hook, Middleware, ToolNext};
use crate::message::ToolCall;
use crate::tool::{ToolCallError, ToolOutput, ToolRuntime};

/// Stops a tool call that runs longer than its limit with [`ToolCallError::TimedOut`]; the
/// model is told the call timed out (and may try again, within the tool's retry budget).
///
/// The same limit can be set on the agent ([`AgentBuilder::tool_timeout`](crate::agent::AgentBuilder::tool_timeout))
/// or on a tool (`#[tool(timeout = "5s")]`); this middleware sets limits by tool name from
/// outside the tools (dynamic tools included) and composes with other `wrap_tool_call` hooks:
/// declared first, its limit covers them too.
///
/// ```
/// use agentry::middleware::ToolTimeout;
/// use std::time::Duration;
///
/// let timeout = ToolTimeout::all(Duration::from_secs(10)).tool("slow_search", Duration::from_secs(60));
/// assert_eq!(timeout.limit_for("slow_search"), Some(Duration::from_secs(60)));
/// assert_eq!(timeout.limit_for("other"), Some(Duration::from_secs(10)));
/// ```
#[derive(Clone, Debug, Default)]
pub struct ToolTimeout {
    default: Option<Duration>,
    per_tool: Vec<(String, Duration)>,
}

impl ToolTimeout {
    /// No limit yet.
    pub fn new() -> Self {
        ToolTimeout::default()
    }

    /// `limit` for every tool without its own.
    pub fn all(limit: Duration) -> Self {
        ToolTimeout {
            default: Some(limit),
            per_tool: Vec::new(),
        }
    }

    /// `limit` for the tool named `tool`.
    pub fn tool(mut self, tool: impl Into<String>, limit: Duration) -> Self {
        let tool = tool.into();
        self.per_tool.retain(|(t, _)| *t != tool);
        self.per_tool.push((tool, limit));
        self
    }

    /// The limit of calls of `tool`.
    pub fn limit_for(&self, tool: &str) -> Option<Duration> {
        self.per_tool
            .iter()
            .find(|(t, _)| t == tool)
            .map(|(_, d)| *d)
            .or(self.default)
    }
}

impl<C, S> Middleware<C, S> for ToolTimeout
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    fn name(&self) -> &str {
        "ToolTimeout"
    }

    fn wrap_tool_call<'a>(
        &'a self,
        call: ToolCall,
        _runtime: &'a ToolRuntime<C, S>,
        next: ToolNext<'a, C, S>,
    ) -> Hook<'a, Result<ToolOutput, ToolCallError>> {
        let Some(limit) = self.limit_for(&call.name) else {
            return next.run(call);
        };
        Hook::boxed(async move {
            let tool = call.name.clone();
            match tokio::time::timeout(limit, next.run(call)).await {
                Ok(result) => result,
                Err(_) => {
                    tracing::debug!(%tool, ?limit, "tool call timed out");
                    Err(ToolCallError::timed_out(tool, limit))
                }
            }
        })
    }
}
