//! Declaring guardrails on an [`AgentBuilder`].

use std::sync::Arc;

use super::traits::{InputGuardrail, OutputGuardrail, ToolInputGuardrail, ToolOutputGuardrail};
use crate::agent::{AgentBuilder, Toolset};
use crate::output::OutputSpec;

impl<T, O, C, S> AgentBuilder<T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: 'static,
{
    /// Adds a guardrail on the user's message, run beside the first model request (see
    /// [`InputGuardrail`]).
    ///
    /// ```
    /// use agentry::agent::{AgentBuilder, NoTools};
    /// use agentry::guard::builtin::MaxLength;
    /// use agentry::testing::{ScriptedModel, Turn};
    ///
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("Hi!")]), NoTools)
    ///     .input_guardrail(MaxLength::chars(2_000))
    ///     .build();
    /// assert_eq!(agent.run("Hello", ()).await.unwrap().output, "Hi!");
    /// # });
    /// ```
    pub fn input_guardrail(mut self, guard: impl InputGuardrail<C>) -> Self {
        self.parts.guards.input.push(Arc::new(guard));
        self
    }

    /// Adds a guardrail on the typed output, run before it is returned (see
    /// [`OutputGuardrail`]). Add it after [`output`](AgentBuilder::output): an output
    /// guardrail checks one output type, and `output(..)` with another type drops it.
    pub fn output_guardrail(mut self, guard: impl OutputGuardrail<O::Output, C>) -> Self {
        self.parts.guards.push_output::<O::Output>(Arc::new(guard));
        self
    }

    /// Adds a guardrail on each tool call's arguments, run before the tool (see
    /// [`ToolInputGuardrail`]).
    pub fn tool_input_guardrail(mut self, guard: impl ToolInputGuardrail<C>) -> Self {
        self.parts.guards.tool_input.push(Arc::new(guard));
        self
    }

    /// Adds a guardrail on each tool's successful result, run before the model sees it (see
    /// [`ToolOutputGuardrail`]).
    pub fn tool_output_guardrail(mut self, guard: impl ToolOutputGuardrail<C>) -> Self {
        self.parts.guards.tool_output.push(Arc::new(guard));
        self
    }
}
