//! Support code for macro expansions. Not a public API.

pub use std::convert::Infallible;
pub use std::future::Future;
pub use std::sync::OnceLock;

pub use crate::tool::{
    CallTool, Inject, IntoToolOutput, IntoToolResult, Tool, ToolCallError, ToolDefinition,
    ToolOutput, ToolRuntime,
};

use schemars::JsonSchema;

/// Builds a tool definition from the generated argument struct.
pub fn tool_definition<A: JsonSchema>(
    name: &str,
    description: &str,
    strict: bool,
) -> ToolDefinition {
    ToolDefinition::new(
        name,
        description,
        crate::schema::canonical_schema_for::<A>(),
        strict,
    )
}

/// Maps an injection failure to the tool-call error.
pub fn inject_error(tool: &str, source: crate::tool::InjectError) -> ToolCallError {
    ToolCallError::Inject {
        tool: tool.to_string(),
        source,
    }
}

/// Converts what the user's function returned into the tool result.
pub fn finish<R: IntoToolResult>(tool: &str, out: R) -> Result<ToolOutput, ToolCallError> {
    out.into_tool_result()
        .map_err(|source| ToolCallError::Failed {
            tool: tool.to_string(),
            source,
        })
}

/// Type-checks, at the span of the user's return type, that it can be a tool's result.
pub const fn assert_tool_result<R: IntoToolResult>() {}

/// Type-checks, at the span of the user's parameter, that the runtime can inject it.
pub fn assert_injectable<T: Inject<C, S>, C, S>() {}
