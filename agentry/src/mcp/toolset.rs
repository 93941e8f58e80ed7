//! [`McpToolset`]: an MCP server's tools as an agent's dynamic tools.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use super::content::from_mcp;
use super::filter::Filter;
use super::names::{Taken, model_name};
use super::{McpClient, McpError};
use crate::agent::{AgentBuilder, DynTool, SharedDynTool, Toolset};
use crate::output::OutputSpec;
use crate::schema::{Dialect, size};
use crate::tool::{
    DefinitionRef, ToolCallError, ToolDefinition, ToolError, ToolOutput, ToolRuntime,
};

/// The tools of one MCP server, ready to hand to an agent beside its static `#[tool]`s.
///
/// Listing checks every tool. A name a provider would refuse (providers accept
/// `^[a-zA-Z0-9_-]{1,64}$`; MCP also allows e.g. `files.read`) is offered to the model
/// mapped — each other character becomes `_`, cut to 64 characters — while calls go to the
/// server under its own name ([`McpTool::remote_name`]); two tools that map to one name are
/// [`McpError::MappedNameClash`]. Its input schema must be within the schema caps (depth, node count, size) and,
/// for each dialect given with [`McpToolsetBuilder::dialect`], lower into it — each failure is
/// a typed [`McpError`] before any model sees the tool. Adding the set to an agent with
/// [`AgentBuilder::mcp_tools`] fails with [`McpError::NameClash`] when a name is taken.
///
/// [`McpToolsetBuilder::only`] and [`McpToolsetBuilder::exclude`] choose tools by their
/// names on the server, at every listing (see their docs). The set is a snapshot of the
/// server's list. When the server sends
/// `tools/list_changed`, [`McpToolset::refreshed`] lists again (the client's cache is marked
/// stale by the notification); build the next agent from the new set.
///
/// ```no_run
/// # async fn demo(model: agentry::testing::ScriptedModel) -> Result<(), agentry::mcp::McpError> {
/// use agentry::agent::{AgentBuilder, NoTools};
/// use agentry::mcp::{McpClient, McpToolset};
/// use agentry::Dialect;
///
/// let time = McpClient::stdio("time", "mcp-server-time").connect().await?;
/// let tools = McpToolset::builder(&time).prefix("time").dialect(Dialect::OpenAi).load().await?;
/// let agent = AgentBuilder::<_, _, (), ()>::new(model, NoTools).mcp_tools(&tools)?.build();
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpToolset {
    client: McpClient,
    options: Options,
    tools: Vec<Arc<McpTool>>,
}

#[derive(Clone, Debug, Default)]
struct Options {
    prefix: Option<String>,
    dialects: Vec<Dialect>,
    filter: Filter,
}

/// Configures an [`McpToolset`]: made by [`McpToolset::builder`].
#[derive(Clone, Debug)]
pub struct McpToolsetBuilder {
    client: McpClient,
    options: Options,
}

impl McpToolsetBuilder {
    /// Names every tool `{prefix}_{name}` (the prefix must be of ASCII letters, digits, `_`
    /// and `-`), so two servers (or a server and a static tool)
    /// can offer tools of the same name.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.options.prefix = Some(prefix.into());
        self
    }

    /// Lowers every tool's schema into `dialect` while listing, so a schema the provider
    /// cannot take is an [`McpError::Schema`] now rather than a failed request later (the
    /// lowered schema is cached for the requests).
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.options.dialects.push(dialect);
        self
    }

    /// Offers only the tools of these names: an allow-list of the names **on the server**
    /// (`files.read`, not `files_read`; without the prefix), applied to every listing — a
    /// named tool the server adds later joins the set at the next
    /// [`refreshed`](McpToolset::refreshed), and a tool not named never does. Each call adds
    /// to the list.
    pub fn only(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.options.filter.only(names.into_iter().map(Into::into));
        self
    }

    /// Never offers the tools of these names (on the server, as for
    /// [`only`](McpToolsetBuilder::only)), now or after a refresh; every other tool,
    /// including those the server adds later, is offered (unless an allow-list leaves it
    /// out). Exclusion wins over [`only`](McpToolsetBuilder::only). Each call adds to the
    /// list.
    pub fn exclude(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.options
            .filter
            .exclude(names.into_iter().map(Into::into));
        self
    }

    /// Lists the server's tools and checks them.
    pub async fn load(self) -> Result<McpToolset, McpError> {
        McpToolset::load(self.client, self.options).await
    }
}

impl McpToolset {
    /// Every tool of `client`'s server, unprefixed, caps checked.
    pub async fn new(client: &McpClient) -> Result<Self, McpError> {
        Self::builder(client).load().await
    }

    /// A set with options.
    pub fn builder(client: &McpClient) -> McpToolsetBuilder {
        McpToolsetBuilder {
            client: client.clone(),
            options: Options::default(),
        }
    }

    async fn load(client: McpClient, options: Options) -> Result<Self, McpError> {
        let listed = client.list_tools().await?;
        let mut tools = Vec::with_capacity(listed.len());
        let mut taken = Taken::default();
        let listed_names: HashSet<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
        let missing = options.filter.missing(&listed_names);
        if !missing.is_empty() {
            tracing::debug!(server = %client.name(), ?missing, "tools named by `only` are not listed (yet)");
        }
        for tool in listed.iter() {
            if !options.filter.admits(&tool.name) {
                continue;
            }
            let remote = tool.name.to_string();
            let name = model_name(options.prefix.as_deref(), &remote)?;
            taken.take(&name, &remote)?;
            let parameters = Value::Object((*tool.input_schema).clone());
            size::check(&parameters, Dialect::OpenAi).map_err(|source| McpError::Schema {
                tool: remote.clone(),
                source,
            })?;
            let description = tool
                .description
                .as_deref()
                .or(tool.title.as_deref())
                .unwrap_or_default()
                .to_string();
            let definition = Arc::new(ToolDefinition::new(name, description, parameters, false));
            for dialect in &options.dialects {
                definition
                    .parameters_for(*dialect)
                    .map_err(|source| McpError::Schema {
                        tool: remote.clone(),
                        source,
                    })?;
            }
            tools.push(Arc::new(McpTool {
                client: client.clone(),
                remote,
                definition,
            }));
        }
        Ok(McpToolset {
            client,
            options,
            tools,
        })
    }

    /// Lists the server's tools again (from the client's cache unless the server announced
    /// a change) with the same options: the same prefix, dialects and filters, so a tool the
    /// server added is offered unless a filter leaves it out by name.
    pub async fn refreshed(&self) -> Result<Self, McpError> {
        Self::load(self.client.clone(), self.options.clone()).await
    }

    /// The tools.
    pub fn tools(&self) -> &[Arc<McpTool>] {
        &self.tools
    }

    /// The names the model calls the tools by.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|t| t.definition.name.as_str())
    }

    /// The client the tools call.
    pub fn client(&self) -> &McpClient {
        &self.client
    }

    /// The tools as dynamic tools of an agent with context `C` and state `S`.
    pub fn dyn_tools<C: 'static, S: 'static>(&self) -> Vec<SharedDynTool<C, S>> {
        self.tools
            .iter()
            .map(|t| t.clone() as SharedDynTool<C, S>)
            .collect()
    }
}

impl fmt::Debug for McpToolset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpToolset")
            .field("server", &self.client.name())
            .field("tools", &self.names().collect::<Vec<_>>())
            .finish()
    }
}

/// One tool of an MCP server, as a [`DynTool`] of any agent.
///
/// Its arguments are checked against the server's input schema by the agent before the
/// call; the result maps to a [`ToolOutput`] (text, images, embedded resources,
/// `structuredContent` as a [`StructuredContent`](super::StructuredContent) artifact), and
/// `isError`, a timeout or a dead server to an error the model reads.
pub struct McpTool {
    client: McpClient,
    remote: String,
    definition: Arc<ToolDefinition>,
}

impl McpTool {
    /// The tool's name on the server, which calls use (without the prefix, unmapped).
    pub fn remote_name(&self) -> &str {
        &self.remote
    }

    /// The definition the model sees (its name prefixed and mapped).
    pub fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    /// Calls the tool; the agent path ([`DynTool::call`]) does the same.
    pub async fn invoke(&self, arguments: Value) -> Result<ToolOutput, ToolCallError> {
        let name = &self.definition.name;
        match self.client.call_tool(&self.remote, arguments).await {
            Ok(result) => from_mcp(name, result),
            Err(McpError::Timeout { after, .. }) => Err(ToolCallError::TimedOut {
                tool: name.clone(),
                after,
            }),
            Err(error) => Err(ToolCallError::failed(
                name.clone(),
                ToolError::new(error.to_string()),
            )),
        }
    }
}

impl fmt::Debug for McpTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpTool")
            .field("name", &self.definition.name)
            .field("server", &self.client.name())
            .finish()
    }
}

impl<C: 'static, S: 'static> DynTool<C, S> for McpTool {
    fn definition(&self) -> DefinitionRef {
        DefinitionRef::Shared(self.definition.clone())
    }

    fn call<'a>(
        &'a self,
        arguments: Value,
        _runtime: &'a ToolRuntime<C, S>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolCallError>> {
        self.invoke(arguments).boxed()
    }
}

impl<T, O, C, S> AgentBuilder<T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: 'static,
    S: 'static,
{
    /// Adds an MCP server's tools. A name already taken — by a static tool, the final-answer
    /// tool or another dynamic tool — is [`McpError::NameClash`] (give the set a prefix),
    /// never a silent shadow.
    pub fn mcp_tools(mut self, tools: &McpToolset) -> Result<Self, McpError> {
        let statics = self.parts.toolset.definitions();
        for name in tools.names() {
            let other = if statics.iter().any(|d| d.name == name) {
                Some("a static tool")
            } else if self.parts.output.is_output_tool(name) {
                Some("the final-answer tool")
            } else if self
                .parts
                .dyn_tools
                .iter()
                .any(|t| t.definition().name == name)
            {
                Some("another dynamic tool")
            } else {
                None
            };
            if let Some(other) = other {
                return Err(McpError::NameClash {
                    name: name.to_string(),
                    other: other.to_string(),
                });
            }
        }
        self.parts.dyn_tools.extend(tools.dyn_tools::<C, S>());
        Ok(self)
    }
}
