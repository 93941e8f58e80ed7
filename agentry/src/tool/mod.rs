//! Tools: functions a model can call.
//!
//! A tool is usually written with [`#[tool]`](macro@crate::tool), which implements two traits
//! for a marker type named after the function:
//!
//! * [`Tool`]: what the model sees — the name, the typed arguments, the cached definition;
//! * [`CallTool<C, S>`]: how to run it with a [`ToolRuntime`] carrying context `C` and state
//!   `S`. A tool that asks for `Context<User>` implements `CallTool<User, S>` only, so handing
//!   it to an agent with another context type is a compile error.
//!
//! [`invoke`] takes a model's [`ToolCall`](crate::ToolCall) through argument parsing (with the
//! JSON path of any bad field), injection and the call itself.

pub(crate) mod argument;
pub(crate) mod argument_field;
mod custom_format;
mod definition;
mod extract;
pub(crate) mod interrupt;
pub(crate) mod interrupt_codec;
mod invoke;
pub(crate) mod output;
pub(crate) mod runtime;
pub(crate) mod schema_override;
pub(crate) mod stand_in;
mod writer;

pub use argument::ToolArgument;
#[cfg(any(feature = "anthropic", feature = "gemini", feature = "openai"))]
pub(crate) use custom_format::refuse_custom;
pub use custom_format::{CustomToolFormat, GrammarSyntax};
pub use definition::{DefinitionRef, ToolDefinition};
pub use extract::{Context, State, ToolCallId};
pub use interrupt::{
    Interrupt, InterruptAnswer, InterruptQuestion, InterruptTypes, Question, QuestionKind,
};
pub use invoke::{ToolCallError, invoke, parse_arguments};
pub use output::{
    Artifact, IntoToolOutput, IntoToolResult, ToolError, ToolErrorMessage, ToolOutput, WithArtifact,
};
pub use runtime::{Inject, InjectError, StateUpdates, ToolRuntime};
pub use schema_override::SchemaFn;
pub use writer::{CustomEvent, StreamWriter, ToolEvent};
pub(crate) use writer::{CustomSink, ErasedEvent, take_event};

pub use crate::store::Store;

use std::future::Future;
use std::time::Duration;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

/// What the model knows about a tool: its name, its arguments and its definition.
///
/// Implemented by [`#[tool]`](macro@crate::tool); implement it by hand only for tools whose
/// shape the macro cannot express.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "not a tool",
    note = "`tools(...)` lists tools: `#[tool]` functions, `#[agent]` structs (sub-agents; one with fields needs `as_tool(..)`), or types implementing `agentry::Tool`; `{Self}` is none of these"
)]
pub trait Tool: Send + Sync + 'static {
    /// The name the model calls the tool by.
    const NAME: &'static str;
    /// Whether the tool's output ends the run and is returned to the caller as it is.
    const RETURN_DIRECT: bool = false;
    /// Whether the tool must run alone rather than concurrently with other calls of a turn.
    const SEQUENTIAL: bool = false;
    /// Whether running a call twice has the effect of running it once
    /// (`#[tool(idempotent)]`). A run in a thread that is recovered after a crash runs again
    /// the idempotent calls that were in flight (at-least-once); the others are reported to
    /// the model as not completed and never run twice (at-most-once). See
    /// [`Thread::recover`](crate::agent::Thread::recover).
    const IDEMPOTENT: bool = false;
    /// How long one call may take before it is cancelled and reported to the model as
    /// [`ToolCallError::TimedOut`] (`#[tool(timeout = "5s")]`). `None`: the agent's default
    /// ([`AgentBuilder::tool_timeout`](crate::agent::AgentBuilder::tool_timeout)), if any.
    const TIMEOUT: Option<Duration> = None;
    /// The arguments the model fills in.
    type Args: DeserializeOwned + JsonSchema + Send + 'static;

    /// The tool's definition, built on first use and cached for the life of the process.
    fn definition() -> &'static ToolDefinition;

    /// Checks an answer to the question a call of this tool stopped at, when a paused run is
    /// resumed: against the answer type of its [`Interrupt`] parameter, or an external tool's
    /// result type. `#[tool]` writes it for tools that ask; the default refuses every answer
    /// (the tool asks no question).
    fn check_answer(answer: &serde_json::Value) -> Result<(), String> {
        let _ = answer;
        Err(format!("tool `{}` asks no question", Self::NAME))
    }
}

/// Running a tool with a runtime that carries context `C` and state `S`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool that runs with context `{C}` and state `{S}`",
    label = "not a tool for this context and state",
    note = "a tool is a function with `#[tool]` (its value is `name {{}}`) or a type implementing `Tool` and `CallTool`; a tool taking `Context<T>` needs `context = T` on the agent (or the runtime), and one taking `State<T>` needs `state = T`"
)]
pub trait CallTool<C = (), S = ()>: Tool {
    /// Calls the tool with parsed arguments.
    ///
    /// `Err` carries a model-facing message: the tool's own error, or a parameter the runtime
    /// could not inject.
    fn call(
        &self,
        args: Self::Args,
        runtime: &ToolRuntime<C, S>,
    ) -> impl Future<Output = Result<ToolOutput, ToolCallError>> + Send;
}
