//! [`McpServer`]: tools served over MCP — `#[tool]`s, dynamic tools, an agent's tools, or an
//! agent itself as one tool.

use std::borrow::Cow;
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, RequestMetaObject, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};

use super::content::{error_to_mcp, to_mcp};
use crate::agent::{ArgsSchema, DynTool, SharedDynTool};
use crate::tool::{ToolCallError, ToolDefinition, ToolRuntime};

/// What a server knows about one `tools/call` request, for building the call's typed
/// context ([`McpServerBuilder::context`]).
pub struct McpRequest<'a> {
    tool: &'a str,
    arguments: &'a Value,
    context: &'a RequestContext<RoleServer>,
}

impl McpRequest<'_> {
    /// The tool called.
    pub fn tool(&self) -> &str {
        self.tool
    }

    /// The call's arguments (already checked against the tool's schema).
    pub fn arguments(&self) -> &Value {
        self.arguments
    }

    /// The request's `_meta` object.
    pub fn meta(&self) -> &RequestMetaObject {
        &self.context.meta
    }

    /// The HTTP request's head, when the call came over streamable HTTP (its headers carry
    /// e.g. an `Authorization` token).
    pub fn http(&self) -> Option<&axum::http::request::Parts> {
        self.context.extensions.get::<axum::http::request::Parts>()
    }

    /// The JSON-RPC request id, as text.
    pub fn id(&self) -> String {
        match serde_json::to_value(&self.context.id) {
            Ok(Value::String(s)) => s,
            Ok(other) => other.to_string(),
            Err(_) => String::new(),
        }
    }

    /// rmcp's request context (the peer, the cancellation token, extensions).
    pub fn raw(&self) -> &RequestContext<RoleServer> {
        self.context
    }
}

type ContextFn<C> = dyn Fn(&McpRequest<'_>) -> Result<C, String> + Send + Sync;
type StateFn<S> = dyn Fn() -> S + Send + Sync;

/// Configures an [`McpServer`].
///
/// ```
/// use agentry::mcp::McpServer;
/// use agentry::agent::FnTool;
/// use agentry::{ToolDefinition, ToolOutput};
/// use serde_json::json;
///
/// struct User { name: String }
///
/// let server = McpServer::builder("greeter")
///     .context(|req| User { name: req.meta().0.get("user").and_then(|v| v.as_str()).unwrap_or("anonymous").into() })
///     .tool(FnTool::new(
///         ToolDefinition::new("greet", "Greet the caller.", json!({ "type": "object", "properties": {} }), false),
///         |_args, rt: &agentry::ToolRuntime<User>| {
///             let text = format!("hello, {}", rt.context().name);
///             async move { Ok(ToolOutput::text(text)) }
///         },
///     ))
///     .build();
/// assert_eq!(server.tool_names().collect::<Vec<_>>(), ["greet"]);
/// ```
pub struct McpServerBuilder<C = (), S = ()> {
    info: Implementation,
    instructions: Option<String>,
    context: Arc<ContextFn<C>>,
    state: Arc<StateFn<S>>,
    tools: Vec<SharedDynTool<C, S>>,
}

/// An MCP server over a set of tools: `#[tool]`s (as [`Typed`](crate::agent::Typed)), dynamic
/// tools, an agent's tools ([`McpServerBuilder::agent_tools`]) or an agent as one tool
/// ([`AgentTool`](super::AgentTool)).
///
/// The schemas served are the tools' own canonical schemas (what a model would see); the
/// arguments of each call are checked against them before the tool runs (a violation is a
/// tool error naming the JSON path, `isError: true`). Each call gets its typed context from
/// the closure given to [`McpServerBuilder::context`] and a fresh state (MCP calls are
/// independent; state updates a tool queues are not kept between calls). A tool's error,
/// panic or timeout is an `isError` result the calling model reads; an unknown tool is a
/// JSON-RPC `invalid params` error.
///
/// Serve it with [`McpServer::serve_stdio`] or [`McpServer::serve_http`]; it implements
/// rmcp's [`ServerHandler`], so any rmcp transport works too.
pub struct McpServer<C = (), S = ()> {
    inner: Arc<Inner<C, S>>,
}

struct Inner<C, S> {
    info: Implementation,
    instructions: Option<String>,
    context: Arc<ContextFn<C>>,
    state: Arc<StateFn<S>>,
    tools: Vec<Served<C, S>>,
}

struct Served<C, S> {
    tool: SharedDynTool<C, S>,
    schema: ArgsSchema,
    listed: Tool,
}

impl<C, S> Clone for McpServer<C, S> {
    fn clone(&self) -> Self {
        McpServer {
            inner: self.inner.clone(),
        }
    }
}

impl<C, S> fmt::Debug for McpServer<C, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer")
            .field("name", &self.inner.info.name)
            .field("tools", &self.tool_names().collect::<Vec<_>>())
            .finish()
    }
}

impl McpServer<(), ()> {
    /// A server named `name` (its `serverInfo`), with unit context and state.
    pub fn builder(name: impl Into<String>) -> McpServerBuilder<(), ()> {
        McpServerBuilder {
            info: Implementation::new(name, env!("CARGO_PKG_VERSION")),
            instructions: None,
            context: Arc::new(|_| Ok(())),
            state: Arc::new(|| ()),
            tools: Vec::new(),
        }
    }
}

impl<S> McpServerBuilder<(), S> {
    /// Builds each call's typed context from the request (its `_meta`, its HTTP headers...).
    /// Set it before adding tools: they are typed by the context.
    pub fn context<C>(
        self,
        f: impl Fn(&McpRequest<'_>) -> C + Send + Sync + 'static,
    ) -> McpServerBuilder<C, S> {
        self.try_context(move |req| Ok(f(req)))
    }

    /// Like [`McpServerBuilder::context`], for a context that may be refused (e.g. a missing
    /// token): the error is the JSON-RPC error's message, and the tool does not run.
    pub fn try_context<C>(
        self,
        f: impl Fn(&McpRequest<'_>) -> Result<C, String> + Send + Sync + 'static,
    ) -> McpServerBuilder<C, S> {
        McpServerBuilder {
            info: self.info,
            instructions: self.instructions,
            context: Arc::new(f),
            state: self.state,
            tools: Vec::new(),
        }
    }
}

impl<C> McpServerBuilder<C, ()> {
    /// Gives each call a fresh state from `f`. Set it before adding tools.
    pub fn state<S>(self, f: impl Fn() -> S + Send + Sync + 'static) -> McpServerBuilder<C, S> {
        McpServerBuilder {
            info: self.info,
            instructions: self.instructions,
            context: self.context,
            state: Arc::new(f),
            tools: Vec::new(),
        }
    }
}

impl<C: 'static, S: 'static> McpServerBuilder<C, S> {
    /// Sets the version in `serverInfo` (default: agentry's).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.info.version = version.into();
        self
    }

    /// Sets the instructions sent to clients on `initialize`.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Serves a tool: a `#[tool]` as `Typed(my_tool {})`, an [`FnTool`](crate::agent::FnTool),
    /// an [`AgentTool`](super::AgentTool)...
    pub fn tool(mut self, tool: impl DynTool<C, S>) -> Self {
        self.tools.push(Arc::new(tool));
        self
    }

    /// Serves a shared tool.
    pub fn shared_tool(mut self, tool: SharedDynTool<C, S>) -> Self {
        self.tools.push(tool);
        self
    }

    /// The server. A later tool of the same name as an earlier one is dropped with a warning.
    pub fn build(self) -> McpServer<C, S> {
        let mut tools: Vec<Served<C, S>> = Vec::with_capacity(self.tools.len());
        for tool in self.tools {
            let def = tool.definition();
            if tools.iter().any(|t| t.listed.name == def.name) {
                tracing::warn!(tool = %def.name, "a second tool of this name is not served");
                continue;
            }
            tools.push(Served {
                schema: ArgsSchema::compile(&def),
                listed: listed_tool(&def),
                tool,
            });
        }
        McpServer {
            inner: Arc::new(Inner {
                info: self.info,
                instructions: self.instructions,
                context: self.context,
                state: self.state,
                tools,
            }),
        }
    }
}

/// A tool definition as MCP lists it.
fn listed_tool(def: &ToolDefinition) -> Tool {
    let schema = match &def.parameters {
        Value::Object(map) => map.clone(),
        _ => {
            let mut map = Map::new();
            map.insert("type".into(), Value::String("object".into()));
            map
        }
    };
    Tool::new(def.name.clone(), def.description.clone(), Arc::new(schema))
}

impl<C, S> McpServer<C, S> {
    /// The names of the tools served.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.inner.tools.iter().map(|t| t.listed.name.as_ref())
    }

    /// The tools as MCP lists them.
    pub fn listed_tools(&self) -> Vec<Tool> {
        self.inner.tools.iter().map(|t| t.listed.clone()).collect()
    }
}

impl<C, S> McpServer<C, S>
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    /// Runs one call as `tools/call` would, for a request context `request`.
    async fn call(
        &self,
        params: CallToolRequestParams,
        request: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = params.name.as_ref();
        let Some(served) = self.inner.tools.iter().find(|t| t.listed.name == name) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{name}`; this server has: {}",
                    self.tool_names().collect::<Vec<_>>().join(", ")
                ),
                None,
            ));
        };
        let arguments = Value::Object(params.arguments.clone().unwrap_or_default());
        if let Err(error) = served.schema.check(name, &arguments) {
            return Ok(error_to_mcp(&error).into());
        }
        let view = McpRequest {
            tool: name,
            arguments: &arguments,
            context: &request,
        };
        let context = (self.inner.context)(&view)
            .map_err(|message| ErrorData::invalid_request(Cow::Owned(message), None))?;
        let runtime = ToolRuntime::from_parts(Arc::new(context), Arc::new((self.inner.state)()))
            .with_call_id(view.id());
        let work = AssertUnwindSafe(served.tool.call(arguments, &runtime)).catch_unwind();
        let timed = async {
            match served.tool.timeout() {
                Some(after) => tokio::time::timeout(after, work).await.ok(),
                None => Some(work.await),
            }
        };
        let outcome = tokio::select! {
            outcome = timed => outcome,
            () = request.ct.cancelled() => {
                return Err(ErrorData::internal_error("the call was cancelled by the client", None));
            }
        };
        let result = match outcome {
            Some(Ok(Ok(output))) => Ok(output),
            Some(Ok(Err(error))) => Err(named(error, name)),
            Some(Err(panic)) => Err(ToolCallError::Panicked {
                tool: name.to_string(),
                message: panic_message(&panic),
            }),
            None => Err(ToolCallError::TimedOut {
                tool: name.to_string(),
                after: served.tool.timeout().unwrap_or_default(),
            }),
        };
        Ok(match result {
            Ok(output) => to_mcp(output),
            Err(error) => error_to_mcp(&error),
        }
        .into())
    }
}

/// Fills in the tool name of an error made with `?` from a [`ToolError`](crate::ToolError).
fn named(error: ToolCallError, name: &str) -> ToolCallError {
    match error {
        ToolCallError::Failed { tool, source } if tool.is_empty() => ToolCallError::Failed {
            tool: name.to_string(),
            source,
        },
        other => other,
    }
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

impl<C, S> ServerHandler for McpServer<C, S>
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    fn get_info(&self) -> ServerConfig {
        let mut config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(self.inner.info.clone());
        if let Some(text) = &self.inner.instructions {
            config = config.with_instructions(text.clone());
        }
        config
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.listed_tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner
            .tools
            .iter()
            .find(|t| t.listed.name == name)
            .map(|t| t.listed.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request, context).await
    }
}
