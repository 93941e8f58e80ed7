//! # agentry
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
//! use agentry::prelude::*;
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

#![warn(missing_docs, unreachable_pub)]
// The wire-format helpers shared by the providers are partly unused when only some provider
// features are on; the default build (all providers) is the one linted strictly.
#![cfg_attr(
    not(all(feature = "openai", feature = "anthropic", feature = "gemini")),
    allow(dead_code, unused_imports, unused_macros, unused_variables)
)]

// Lets the macros name this crate as `::agentry` even from inside it.
extern crate self as agentry;

pub mod agent;
pub mod cassette;
mod citation;
pub mod cost;
pub mod embed;
mod env;
pub mod error;
#[cfg(feature = "eval")]
pub mod eval;
pub mod guard;
pub mod history;
pub mod http;
#[cfg(any(feature = "mcp-client", feature = "mcp-server"))]
pub mod mcp;
pub mod media;
pub mod message;
mod messages;
pub mod middleware;
pub mod model;
pub mod multi;
pub mod output;
pub mod persist;
pub mod protocol;
pub mod providers;
mod random;
#[cfg(feature = "restate")]
pub mod restate;
mod run;
pub mod schema;
#[cfg(feature = "server")]
pub mod serve;
mod shared_list;
pub mod store;
pub mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tool;
pub mod usage;

#[doc = include_str!("../docs/agent.md")]
pub use agentry_macros::agent;

#[doc = include_str!("../docs/structured_output.md")]
pub use agentry_macros::StructuredOutput;

#[doc = include_str!("../docs/tool.md")]
pub use agentry_macros::tool;
pub use cassette::Cassette;
pub use embed::init_embedding_model;
pub use error::{Error, Result};
pub use media::{AudioFormat, FileSource, PartKind};
pub use message::{
    AssistantMessage, Citation, ContentBlock, ImageSource, Message, ToolCall, ToolResultMessage,
    UserMessage,
};
pub use messages::Messages;
pub use model::init_chat_model;
pub use schema::{Dialect, SchemaError};
pub use shared_list::SharedList;
pub use tool::{
    Artifact, CallTool, Context, Inject, InjectError, Interrupt, State, Store, StreamWriter, Tool,
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
    pub use crate::model::{ChatModel, ChatModelExt};
    pub use crate::output::{OutputMode, StructuredExt, StructuredOutput};
    pub use crate::tool::{
        CallTool, Context, Interrupt, State, Store, StreamWriter, Tool, ToolCallError, ToolCallId,
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

/// Entry points for the fuzz targets in `fuzz/` (the non-default `fuzzing` feature) to
/// crate-private decoders. Not a public API: it may change in any release.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod __fuzz;
