//! # agent-sdk
//!
//! A typed LLM agent SDK in which the compiler does the work.
//!
//! * [`#[tool]`](macro@tool) turns a plain Rust function into a tool a model can call: the JSON
//!   schema comes from the parameter types and doc comments, and parameters such as
//!   [`Context`], [`State`] or [`ToolCallId`] are injected by the runtime and never shown to
//!   the model.
//! * [`schema`] lowers one canonical JSON schema into each provider's dialect (OpenAI strict,
//!   OpenAI, Anthropic, Gemini) and refuses, with a typed [`SchemaError`], what a dialect
//!   cannot represent.
//! * [`Message`], [`ToolCall`] and [`Usage`] are plain serde types, so a conversation can be
//!   stored and reloaded.
//!
//! ```
//! use agent_sdk::prelude::*;
//!
//! /// Add two integers.
//! ///
//! /// # Arguments
//! /// * `a` - The first addend.
//! /// * `b` - The second addend.
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! // Still a plain function...
//! assert_eq!(add(2, 3), 5);
//! // ...and a tool with a cached definition.
//! let def = <add as Tool>::definition();
//! assert_eq!(def.name, "add");
//! assert_eq!(def.description, "Add two integers.");
//! assert_eq!(def.parameters["properties"]["a"]["description"], "The first addend.");
//! ```

#![warn(missing_docs)]

// Lets the macros name this crate as `::agent_sdk` even from inside it.
extern crate self as agent_sdk;

pub mod agent;
pub mod error;
pub mod http;
pub mod message;
pub mod middleware;
pub mod model;
pub mod output;
pub mod persist;
pub mod protocol;
pub mod providers;
pub mod schema;
pub mod store;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tool;
pub mod usage;

pub use agent_macros::{StructuredOutput, agent};

/// Turns a function into a tool a model can call.
///
/// The function stays as it is; beside it, `#[tool]` generates a marker type of the same name
/// implementing [`Tool`] (name, description from the first doc paragraph, argument schema
/// from the parameters and their `# Arguments` docs) and [`CallTool`] (how the runtime calls
/// it). Parameters of injected types ([`Context`], [`State`], [`ToolCallId`],
/// [`StreamWriter`], [`Store`], or any [`Inject`] type) are filled by the runtime and never
/// shown to the model.
///
/// Options, all optional: `#[tool(name = "get_weather", description = "...", strict = true,
/// return_direct, sequential, timeout = "5s")]`.
///
/// * `return_direct`: the tool's output ends the run as the final answer.
/// * `sequential`: the tool runs alone, never concurrently with other calls of an answer.
/// * `timeout`: a call that takes longer (`"500ms"`, `"5s"`, `"2m"`, `"1h"`) is cancelled and
///   reported to the model as [`ToolCallError::TimedOut`], within the tool's retry budget; it
///   overrides [`AgentBuilder::tool_timeout`](agent::AgentBuilder::tool_timeout).
///
/// # Sync and async tools
///
/// An `async fn` tool is polled by the run's own task. A plain `fn` tool runs on tokio's
/// blocking pool ([`tokio::task::spawn_blocking`]), so it may block (file I/O, a sync
/// database driver, CPU work) without stalling the run: sync calls of one answer overlap like
/// async ones, and the run's `max_execution_time` and the tool's `timeout` hold while it
/// blocks. A blocking thread cannot be interrupted: when the deadline passes the run returns
/// and the call's late result is dropped when it arrives. (Called outside a tokio runtime, a
/// sync tool runs inline.) The parameters, injected values and, for `&self` methods of an
/// `#[agent]` impl block, the shared `Arc` of the value move into the blocking task, so
/// nothing extra is required of them beyond what every tool already needs (`Send +
/// 'static`).
///
/// ```
/// use agent_sdk::prelude::*;
///
/// /// Read a file from the notes folder.
/// ///
/// /// # Arguments
/// /// * `name` - The file name.
/// #[tool(timeout = "2s")]
/// fn read_note(name: String) -> Result<String, std::io::Error> {
///     // Blocking I/O is fine here: this runs on the blocking pool.
///     std::fs::read_to_string(std::env::temp_dir().join(name))
/// }
///
/// assert_eq!(<read_note as Tool>::TIMEOUT, Some(std::time::Duration::from_secs(2)));
/// ```
pub use agent_macros::tool;
pub use error::{Error, Result};
pub use message::{
    AssistantMessage, ContentBlock, ImageSource, Message, ToolCall, ToolResultMessage, UserMessage,
};
pub use model::init_chat_model;
pub use schema::{Dialect, SchemaError};
pub use tool::{
    Artifact, CallTool, Context, Inject, InjectError, State, Store, StreamWriter, Tool,
    ToolArgument, ToolCallError, ToolCallId, ToolDefinition, ToolError, ToolOutput, ToolRuntime,
    WithArtifact,
};
pub use usage::Usage;

/// Re-exported so that macro-generated code needs no extra dependency in the user's crate.
pub use schemars;
/// Re-exported so that macro-generated code needs no extra dependency in the user's crate.
pub use serde;
/// Re-exported so that macro-generated code needs no extra dependency in the user's crate.
pub use serde_json;

/// The names most programs need, in one `use`.
pub mod prelude {
    pub use crate::agent::{
        Agent, AgentBuilder, AgentEvent, FnTool, Input, LimitPolicy, RunError, RunErrorKind,
        RunResult, StopReason,
    };
    pub use crate::message::{ContentBlock, Message, ToolCall};
    pub use crate::model::ChatModel;
    pub use crate::output::{OutputMode, StructuredExt, StructuredOutput};
    pub use crate::tool::{
        CallTool, Context, State, Store, StreamWriter, Tool, ToolCallError, ToolCallId,
        ToolDefinition, ToolError, ToolOutput, ToolRuntime, WithArtifact,
    };
    pub use crate::usage::Usage;
    pub use crate::{Dialect, Error, Result, agent, tool};
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}

/// Support code for macro expansions. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private;
