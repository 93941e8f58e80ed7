//! [`ClearToolResults`]: keeps the transcript small by clearing old tool results.

use super::{BeforeModel, Flow, Hook, Middleware, MiddlewareError, RunCx};
use crate::message::{ContentBlock, Message};

/// Context editing (LangChain's `ContextEditingMiddleware` with `ClearToolUsesEdit`): before
/// each request, the content of every tool result but the latest `keep` is replaced by a short
/// placeholder. Messages are never removed, so every tool call keeps its result and the
/// history stays valid for every provider.
///
/// ```
/// use agentry::middleware::ClearToolResults;
///
/// let edit = ClearToolResults::keep_last(3).exclude("get_user_profile");
/// # let _ = edit;
/// ```
#[derive(Clone, Debug)]
pub struct ClearToolResults {
    keep: usize,
    placeholder: String,
    exclude: Vec<String>,
}

impl ClearToolResults {
    /// Keeps the latest `keep` tool results.
    pub fn keep_last(keep: usize) -> Self {
        ClearToolResults {
            keep,
            placeholder: "[cleared]".to_string(),
            exclude: Vec::new(),
        }
    }

    /// The text that replaces a cleared result (default `[cleared]`).
    pub fn placeholder(mut self, text: impl Into<String>) -> Self {
        self.placeholder = text.into();
        self
    }

    /// Never clears results of the tool `tool`.
    pub fn exclude(mut self, tool: impl Into<String>) -> Self {
        self.exclude.push(tool.into());
        self
    }

    /// Clears old results in `messages`; returns how many were cleared.
    pub fn apply(&self, messages: &mut [Message]) -> usize {
        let total = messages
            .iter()
            .filter(|m| matches!(m, Message::Tool(_)))
            .count();
        let mut to_clear = total.saturating_sub(self.keep);
        let mut cleared = 0;
        for message in messages.iter_mut() {
            if to_clear == 0 {
                break;
            }
            let Message::Tool(result) = message else {
                continue;
            };
            to_clear -= 1;
            if self.exclude.contains(&result.name) {
                continue;
            }
            let placeholder = [ContentBlock::text(&self.placeholder)];
            if result.content != placeholder {
                result.content = placeholder.to_vec();
                cleared += 1;
            }
        }
        cleared
    }
}

impl<C, S> Middleware<C, S> for ClearToolResults
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    fn name(&self) -> &str {
        "ClearToolResults"
    }

    fn before_model<'a>(
        &'a self,
        request: &'a mut BeforeModel,
        _cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        let cleared = self.apply(&mut request.messages);
        if cleared > 0 {
            tracing::debug!(cleared, "old tool results cleared");
        }
        Hook::ready(Ok(Flow::Continue))
    }
}
