//! The guardrails an agent holds, each kind behind an object-safe face.

use std::any::Any;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;

use super::traits::{InputGuardrail, OutputGuardrail, ToolInputGuardrail, ToolOutputGuardrail};
use super::{GuardReason, Verdict};
use crate::message::ToolCall;
use crate::tool::ToolOutput;

/// A verdict with its reason type-erased.
pub(crate) type DynVerdict<V> = Verdict<V, GuardReason>;

/// [`InputGuardrail`] as an object.
pub(crate) trait DynInput<C>: Send + Sync {
    fn name(&self) -> &str;
    fn check<'a>(&'a self, message: &'a str, context: &'a C) -> BoxFuture<'a, DynVerdict<String>>;
}

impl<C: Sync, G: InputGuardrail<C>> DynInput<C> for G {
    fn name(&self) -> &str {
        InputGuardrail::name(self)
    }

    fn check<'a>(&'a self, message: &'a str, context: &'a C) -> BoxFuture<'a, DynVerdict<String>> {
        InputGuardrail::check(self, message, context)
            .map(|v| v.map_reason(GuardReason::new))
            .boxed()
    }
}

/// [`OutputGuardrail`] as an object. It takes the output by value and gives it back (passed
/// or rewritten), so the output need not be `Sync` for the run's future to be `Send`.
pub(crate) trait DynOutput<O, C>: Send + Sync {
    fn name(&self) -> &str;
    fn check<'a>(&'a self, output: O, context: &'a C) -> BoxFuture<'a, Result<O, GuardReason>>;
}

impl<O: Send + 'static, C: Sync, G: OutputGuardrail<O, C>> DynOutput<O, C> for G {
    fn name(&self) -> &str {
        OutputGuardrail::name(self)
    }

    fn check<'a>(&'a self, output: O, context: &'a C) -> BoxFuture<'a, Result<O, GuardReason>> {
        Box::pin(async move {
            let verdict = {
                let check = OutputGuardrail::check(self, &output, context);
                check.await
            };
            match verdict {
                Verdict::Pass => Ok(output),
                Verdict::Rewrite(rewritten) => Ok(rewritten),
                Verdict::Block(reason) => Err(GuardReason::new(reason)),
            }
        })
    }
}

/// [`ToolInputGuardrail`] as an object.
pub(crate) trait DynToolInput<C>: Send + Sync {
    fn name(&self) -> &str;
    fn check<'a>(&'a self, call: &'a ToolCall, context: &'a C)
    -> BoxFuture<'a, DynVerdict<String>>;
}

impl<C: Sync, G: ToolInputGuardrail<C>> DynToolInput<C> for G {
    fn name(&self) -> &str {
        ToolInputGuardrail::name(self)
    }

    fn check<'a>(
        &'a self,
        call: &'a ToolCall,
        context: &'a C,
    ) -> BoxFuture<'a, DynVerdict<String>> {
        ToolInputGuardrail::check(self, call, context)
            .map(|v| v.map_reason(GuardReason::new))
            .boxed()
    }
}

/// [`ToolOutputGuardrail`] as an object.
pub(crate) trait DynToolOutput<C>: Send + Sync {
    fn name(&self) -> &str;
    fn check<'a>(
        &'a self,
        call: &'a ToolCall,
        output: &'a ToolOutput,
        context: &'a C,
    ) -> BoxFuture<'a, DynVerdict<ToolOutput>>;
}

impl<C: Sync, G: ToolOutputGuardrail<C>> DynToolOutput<C> for G {
    fn name(&self) -> &str {
        ToolOutputGuardrail::name(self)
    }

    fn check<'a>(
        &'a self,
        call: &'a ToolCall,
        output: &'a ToolOutput,
        context: &'a C,
    ) -> BoxFuture<'a, DynVerdict<ToolOutput>> {
        ToolOutputGuardrail::check(self, call, output, context)
            .map(|v| v.map_reason(GuardReason::new))
            .boxed()
    }
}

/// One output guardrail for outputs of type `O`, stored type-erased (the agent's parts do
/// not name its output type) and read back by type at the end of a run.
struct OutputEntry<O, C>(Arc<dyn DynOutput<O, C>>);

/// An agent's guardrails, by kind, in the order they were declared.
pub(crate) struct Guards<C> {
    pub(crate) input: Vec<Arc<dyn DynInput<C>>>,
    /// `OutputEntry<O, C>` values for the agent's output type `O`.
    output: Vec<Arc<dyn Any + Send + Sync>>,
    pub(crate) tool_input: Vec<Arc<dyn DynToolInput<C>>>,
    pub(crate) tool_output: Vec<Arc<dyn DynToolOutput<C>>>,
}

impl<C> Default for Guards<C> {
    fn default() -> Self {
        Guards {
            input: Vec::new(),
            output: Vec::new(),
            tool_input: Vec::new(),
            tool_output: Vec::new(),
        }
    }
}

impl<C: 'static> Guards<C> {
    /// Adds an output guardrail for outputs of type `O`.
    pub(crate) fn push_output<O: 'static>(&mut self, guard: Arc<dyn DynOutput<O, C>>) {
        self.output.push(Arc::new(OutputEntry(guard)));
    }

    /// The output guardrails for outputs of type `O`, in order.
    pub(crate) fn output<O: 'static>(&self) -> impl Iterator<Item = &dyn DynOutput<O, C>> {
        self.output
            .iter()
            .filter_map(|entry| entry.downcast_ref::<OutputEntry<O, C>>())
            .map(|entry| &*entry.0)
    }

    /// Whether there are output guardrails.
    pub(crate) fn has_output(&self) -> bool {
        !self.output.is_empty()
    }

    /// Whether tool calls are checked.
    pub(crate) fn has_tool_checks(&self) -> bool {
        !self.tool_input.is_empty() || !self.tool_output.is_empty()
    }

    /// The same guardrails for an agent whose output type becomes `O2`: output guardrails
    /// written for another output type cannot check it, and are dropped with a warning.
    pub(crate) fn for_output<O2: 'static>(mut self) -> Self {
        let before = self.output.len();
        self.output
            .retain(|entry| entry.downcast_ref::<OutputEntry<O2, C>>().is_some());
        if self.output.len() < before {
            tracing::warn!(
                dropped = before - self.output.len(),
                output = std::any::type_name::<O2>(),
                "output guardrails added before `output(..)` check another output type and were dropped; add them after `output(..)`"
            );
        }
        self
    }
}
