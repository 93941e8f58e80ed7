//! Agents over MCP: an agent's own tools served ([`McpServerBuilder::agent_tools`]), and an
//! agent served as one tool ([`AgentTool`]).

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::{Value, json};

use super::McpServerBuilder;
use super::content::StructuredContent;
use crate::agent::{Agent, DynTool, Toolset};
use crate::message::{ContentBlock, ToolCall};
use crate::output::OutputSpec;
use crate::tool::{
    Artifact, DefinitionRef, ToolCallError, ToolDefinition, ToolError, ToolOutput, ToolRuntime,
};

impl<C, S> McpServerBuilder<C, S>
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    /// Serves every tool of `agent` — its `#[agent(tools(...))]`, dispatched through the
    /// agent's generated `match`, and its dynamic tools — with their schemas.
    pub fn agent_tools<T, O>(mut self, agent: Arc<Agent<T, O, C, S>>) -> Self
    where
        T: Toolset<C, S>,
        O: Send + Sync + 'static,
    {
        for definition in agent.parts.toolset.definitions() {
            self = self.tool(StaticTool {
                agent: agent.clone(),
                definition,
            });
        }
        for tool in &agent.parts.dyn_tools {
            self = self.shared_tool(tool.clone());
        }
        self
    }
}

/// One static tool of an agent, called through the agent's toolset.
struct StaticTool<T, O, C, S> {
    agent: Arc<Agent<T, O, C, S>>,
    definition: DefinitionRef,
}

impl<T, O, C, S> DynTool<C, S> for StaticTool<T, O, C, S>
where
    T: Toolset<C, S>,
    O: Send + Sync + 'static,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    fn definition(&self) -> DefinitionRef {
        self.definition.clone()
    }

    fn call<'a>(
        &'a self,
        arguments: Value,
        runtime: &'a ToolRuntime<C, S>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolCallError>> {
        async move {
            let toolset = &self.agent.parts.toolset;
            let call = ToolCall::new(
                runtime.call_id(),
                self.definition.name.clone(),
                arguments.to_string(),
            );
            let parsed = match toolset.parse(&call) {
                Some(parsed) => parsed?,
                None => {
                    return Err(ToolCallError::UnknownTool {
                        name: call.name,
                        available: Vec::new(),
                    });
                }
            };
            toolset.call(parsed, runtime).await
        }
        .boxed()
    }
}

/// An agent served as one tool: the input is `{"prompt": "..."}`, the output the agent's
/// final answer — as text, and as `structuredContent` (the typed output serialized).
///
/// The agent runs with the calling request's context (cloned) and a default state.
///
/// ```
/// use std::sync::Arc;
/// use agentry::agent::{AgentBuilder, NoTools};
/// use agentry::mcp::{AgentTool, McpServer};
/// use agentry::testing::{ScriptedModel, Turn};
///
/// let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("Paris")]), NoTools).build();
/// let server = McpServer::builder("geo")
///     .tool(AgentTool::new("ask_geographer", "Answers geography questions.", Arc::new(agent)))
///     .build();
/// assert_eq!(server.tool_names().collect::<Vec<_>>(), ["ask_geographer"]);
/// ```
pub struct AgentTool<T, O, C, S> {
    agent: Arc<Agent<T, O, C, S>>,
    definition: DefinitionRef,
    _marker: PhantomData<fn() -> (C, S)>,
}

impl<T, O, C, S> AgentTool<T, O, C, S> {
    /// The agent as a tool named `name`, described for the calling model by `description`.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        agent: Arc<Agent<T, O, C, S>>,
    ) -> Self {
        let parameters = json!({
            "type": "object",
            "properties": {
                "prompt": { "type": "string", "description": "The request for the agent." }
            },
            "required": ["prompt"],
            "additionalProperties": false
        });
        AgentTool {
            agent,
            definition: ToolDefinition::new(name, description, parameters, false).into(),
            _marker: PhantomData,
        }
    }
}

impl<T, O, C, S> fmt::Debug for AgentTool<T, O, C, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentTool")
            .field("name", &self.definition.name)
            .finish_non_exhaustive()
    }
}

impl<T, O, C, S, S2> DynTool<C, S2> for AgentTool<T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec + Send + Sync + 'static,
    O::Output: Serialize,
    C: Clone + Send + Sync + 'static,
    S: Default + Send + Sync + 'static,
    S2: 'static,
{
    fn definition(&self) -> DefinitionRef {
        self.definition.clone()
    }

    fn call<'a>(
        &'a self,
        arguments: Value,
        runtime: &'a ToolRuntime<C, S2>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolCallError>> {
        let context = runtime.context().clone();
        async move {
            let name = &self.definition.name;
            let prompt = arguments
                .get("prompt")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let run =
                self.agent.run(prompt, context).await.map_err(|e| {
                    ToolCallError::failed(name.clone(), ToolError::new(e.to_string()))
                })?;
            let value = serde_json::to_value(&run.output).map_err(|e| {
                ToolCallError::failed(
                    name.clone(),
                    ToolError::new(format!("the agent's output could not be serialized: {e}")),
                )
            })?;
            let text = match &value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Ok(ToolOutput {
                content: vec![ContentBlock::text(text)],
                artifact: Some(Artifact::new(StructuredContent(value))),
            })
        }
        .boxed()
    }
}
