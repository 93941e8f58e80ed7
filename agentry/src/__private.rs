//! Support code for macro expansions. Not a public API.

pub use futures::future::Either;
pub use std::convert::Infallible;
pub use std::future::Future;
pub use std::sync::OnceLock;

pub use crate::tool::{
    CallTool, Inject, IntoToolOutput, IntoToolResult, Tool, ToolCallError, ToolDefinition,
    ToolOutput, ToolRuntime,
};

/// Support for `#[derive(StructuredOutput)]`.
pub mod output {
    pub use crate::output::derive_bounds::*;
    pub use crate::output::derive_support::*;
}

/// Support for `#[agent]`: parsing and calling its tools.
pub mod agent {
    pub use crate::agent::support::*;
}

/// The compile-time checks `#[agent]` reports a misfit tool against.
pub mod checks {
    pub use crate::agent::checks::*;
}

/// The traits `#[agent]` implements to make an agent a sub-agent tool.
pub mod multi {
    pub use crate::multi::agent_tool::{
        AgentTool, ProjectContext, SubAgent, SubAgentBuilder, SubAgentOutput, SubAgentState,
    };
    pub use crate::multi::sub_agent_fields::{FieldsMissing, FieldsOk, SubAgentFields};
}

/// Probing a tool parameter's type for what it lacks (see `ArgumentProbe`).
pub mod argument {
    pub use crate::tool::argument::{
        ArgumentOk, ArgumentParse, ArgumentProbe, MissingBoth, MissingParse, MissingSchema,
        ProbeArgumentOk, ProbeMissingBoth, ProbeMissingParse, ProbeMissingSchema, parsed_argument,
    };
    pub use crate::tool::argument_field::{
        ContainerItemMissing, ContainerItemOk, ContainerItemParses, ContainerProbe,
        FieldSchemaFallback, FieldSchemaOk, ItemReported, ParseFieldFallback, ParseFieldOk,
        WholeCheck, WholeParseCheck,
    };
}
pub use crate::tool::interrupt::{InterruptTypes, external, external_ask};
pub use crate::tool::interrupt_codec::{InterruptProbe, ProbeInterrupt, ProbeInterruptUnfit};
pub use crate::tool::output::tool_result;
pub use crate::tool::schema_override::schema_with;

/// The stand-in of a rejected `#[tool]` function.
pub mod stand_in {
    pub use crate::tool::stand_in::{call, definition};
}

use schemars::JsonSchema;

/// Builds a tool definition from the generated argument struct.
pub fn tool_definition<A: JsonSchema>(
    name: &str,
    description: &str,
    strict: bool,
) -> ToolDefinition {
    let mut parameters = crate::schema::canonical_schema_for::<A>();
    // The args struct's own doc comment would repeat the tool description.
    if let Some(map) = parameters.as_object_mut() {
        map.remove("description");
        // Providers expect `properties` even when a tool takes no arguments.
        map.entry("properties")
            .or_insert_with(|| serde_json::Value::Object(Default::default()));
    }
    ToolDefinition::new(name, description, parameters, strict)
}

/// Maps an injection failure to the tool-call error.
pub fn inject_error(tool: &str, source: crate::tool::InjectError) -> ToolCallError {
    ToolCallError::Inject {
        tool: tool.to_string(),
        source,
    }
}

pub use crate::tool::output::tool_result as finish;

/// Runs a sync tool body on tokio's blocking pool, so it neither blocks the run's task nor
/// serializes parallel calls; outside a tokio runtime it runs inline. A panic in the body is
/// resumed here, where the agent runtime catches it like an async tool's.
pub async fn run_blocking<F>(tool: &'static str, body: F) -> Result<ToolOutput, ToolCallError>
where
    F: FnOnce() -> Result<ToolOutput, ToolCallError> + Send + 'static,
{
    if tokio::runtime::Handle::try_current().is_err() {
        return body();
    }
    match tokio::task::spawn_blocking(body).await {
        Ok(result) => result,
        Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        Err(error) => Err(ToolCallError::Panicked {
            tool: tool.to_string(),
            message: format!("the blocking task did not finish: {error}"),
        }),
    }
}
