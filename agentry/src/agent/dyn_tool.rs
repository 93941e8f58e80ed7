//! The explicit path for tools known only at run time: [`DynTool`].

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use crate::tool::{
    CallTool, DefinitionRef, ToolCallError, ToolDefinition, ToolOutput, ToolRuntime,
    parse_arguments,
};

/// A tool known only at run time (e.g. discovered from an MCP server), called with JSON
/// arguments through a boxed future.
///
/// Compile-time tools go through the agent's [`Toolset`](super::Toolset); dynamic tools are a
/// separate, explicit path: add them with
/// [`AgentBuilder::dyn_tool`](super::AgentBuilder::dyn_tool). A dynamic tool whose name
/// collides with a static tool is never called (the static tool wins).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a dynamic tool for an agent with context `{C}` and state `{S}`",
    label = "not a `DynTool<{C}, {S}>`",
    note = "wrap an async function of the JSON arguments in `FnTool::new(ToolDefinition::new(name, description, schema, strict), f)`, or implement `DynTool<C, S>` for `{Self}`; a `#[tool]` function goes in `#[agent(tools(..))]` instead"
)]
pub trait DynTool<C, S>: Send + Sync + 'static {
    /// The definition sent to the model.
    fn definition(&self) -> DefinitionRef;

    /// Whether the tool must run alone.
    fn is_sequential(&self) -> bool {
        false
    }

    /// Whether the tool's output ends the run.
    fn is_return_direct(&self) -> bool {
        false
    }

    /// How long one call may take (`None`: the agent's default, if any).
    fn timeout(&self) -> Option<Duration> {
        None
    }

    /// Whether running a call twice has the effect of running it once: a call in flight at a
    /// crash runs again when the thread is recovered (see
    /// [`Tool::IDEMPOTENT`](crate::Tool::IDEMPOTENT)).
    fn is_idempotent(&self) -> bool {
        false
    }

    /// Checks an answer to a question a call of this tool asked (an
    /// [`Interrupt`](crate::Interrupt) in its body, or an
    /// [`ExternalTool`](super::ExternalTool)'s result) when a paused run is resumed. The
    /// default refuses every answer: a tool that asks overrides it.
    fn check_answer(&self, answer: &serde_json::Value) -> Result<(), String> {
        let _ = answer;
        Err("this tool asks no question".to_string())
    }

    /// Runs the tool with the model's arguments, already parsed as JSON (`{}` when the model
    /// sent none).
    fn call<'a>(
        &'a self,
        arguments: Value,
        runtime: &'a ToolRuntime<C, S>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolCallError>>;
}

/// A shared dynamic tool.
pub type SharedDynTool<C, S> = Arc<dyn DynTool<C, S>>;

/// A dynamic tool from a definition and an async function of the JSON arguments.
///
/// ```
/// use agentry::agent::{DynTool, FnTool};
/// use agentry::{ToolDefinition, ToolOutput};
/// use serde_json::json;
///
/// let echo = FnTool::new(
///     ToolDefinition::new("echo", "Repeat the text.", json!({
///         "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"]
///     }), false),
///     |args: serde_json::Value, _rt: &agentry::ToolRuntime| {
///         let text = args["text"].as_str().unwrap_or_default().to_string();
///         async move { Ok(ToolOutput::text(text)) }
///     },
/// );
/// assert_eq!(DynTool::<(), ()>::definition(&echo).name, "echo");
/// ```
pub struct FnTool<F> {
    definition: DefinitionRef,
    function: F,
    sequential: bool,
    return_direct: bool,
    idempotent: bool,
    timeout: Option<Duration>,
}

impl<F> FnTool<F> {
    /// A tool with this definition, running `function`.
    pub fn new(definition: impl Into<DefinitionRef>, function: F) -> Self {
        FnTool {
            definition: definition.into(),
            function,
            sequential: false,
            return_direct: false,
            idempotent: false,
            timeout: None,
        }
    }

    /// Cancels a call of this tool after `after`, reporting
    /// [`ToolCallError::TimedOut`] to the model.
    pub fn timeout(mut self, after: Duration) -> Self {
        self.timeout = Some(after);
        self
    }

    /// Marks the tool as one that must run alone.
    pub fn sequential(mut self) -> Self {
        self.sequential = true;
        self
    }

    /// Marks the tool as idempotent: a call in flight at a crash runs again when the thread is
    /// recovered.
    pub fn idempotent(mut self) -> Self {
        self.idempotent = true;
        self
    }

    /// Marks the tool as one whose output ends the run.
    pub fn return_direct(mut self) -> Self {
        self.return_direct = true;
        self
    }
}

impl<F> fmt::Debug for FnTool<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnTool")
            .field("name", &self.definition.name)
            .finish_non_exhaustive()
    }
}

impl<F, Fut, C, S> DynTool<C, S> for FnTool<F>
where
    F: Fn(Value, &ToolRuntime<C, S>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ToolOutput, ToolCallError>> + Send + 'static,
    C: 'static,
    S: 'static,
{
    fn definition(&self) -> DefinitionRef {
        self.definition.clone()
    }

    fn is_sequential(&self) -> bool {
        self.sequential
    }

    fn is_return_direct(&self) -> bool {
        self.return_direct
    }

    fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    fn is_idempotent(&self) -> bool {
        self.idempotent
    }

    fn call<'a>(
        &'a self,
        arguments: Value,
        runtime: &'a ToolRuntime<C, S>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolCallError>> {
        (self.function)(arguments, runtime).boxed()
    }
}

/// A compile-time tool used through the dynamic path (e.g. to mix it into a runtime-built
/// list). Arguments are deserialized from the JSON value into the tool's `Args`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Typed<T>(pub T);

impl<T, C, S> DynTool<C, S> for Typed<T>
where
    T: CallTool<C, S>,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    fn definition(&self) -> DefinitionRef {
        DefinitionRef::Static(T::definition())
    }

    fn is_sequential(&self) -> bool {
        T::SEQUENTIAL
    }

    fn is_return_direct(&self) -> bool {
        T::RETURN_DIRECT
    }

    fn timeout(&self) -> Option<Duration> {
        T::TIMEOUT
    }

    fn is_idempotent(&self) -> bool {
        T::IDEMPOTENT
    }

    fn check_answer(&self, answer: &Value) -> Result<(), String> {
        T::check_answer(answer)
    }

    fn call<'a>(
        &'a self,
        arguments: Value,
        runtime: &'a ToolRuntime<C, S>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolCallError>> {
        async move {
            let text = arguments.to_string();
            let args = parse_arguments::<T::Args>(T::NAME, &text, T::definition().strict)?;
            self.0.call(args, runtime).await
        }
        .boxed()
    }
}

/// Parses raw model arguments into JSON for a dynamic tool (`null`/empty → `{}`).
pub(crate) fn json_arguments(def: &ToolDefinition, raw: &str) -> Result<Value, ToolCallError> {
    if def.custom.is_some() {
        // A free-form tool's input is text, not JSON.
        return Ok(Value::String(raw.to_string()));
    }
    parse_arguments::<Value>(&def.name, raw, false)
}
