//! [`McpError`]: what can go wrong talking to an MCP server or serving one.

use std::time::Duration;

use crate::schema::SchemaError;

/// An error of the MCP client or server.
///
/// Inside an agent, an MCP tool's failure reaches the model as the tool's error message
/// (within the tool's retry budget); called directly
/// ([`McpClient::call_tool`](super::McpClient::call_tool)), it is this typed error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The server could not be started or the MCP handshake failed.
    #[error("could not connect to the MCP server `{server}`: {message}")]
    Connect {
        /// The server's name (as given to the client).
        server: String,
        /// What went wrong.
        message: String,
    },
    /// The connection is closed: the server exited or the transport broke. The next call
    /// reconnects if the client's [`Reconnect`](super::Reconnect) policy allows it.
    #[error("the MCP server `{server}` is gone ({message}); {}", if *.will_reconnect { "the next call reconnects" } else { "it is not reconnected (Reconnect::Never)" })]
    ServerGone {
        /// The server's name.
        server: String,
        /// What the transport reported.
        message: String,
        /// Whether the next call tries to reconnect.
        will_reconnect: bool,
    },
    /// Every reconnection attempt allowed by the policy failed.
    #[error(
        "the MCP server `{server}` could not be reconnected after {attempts} attempt(s): {message}"
    )]
    ReconnectFailed {
        /// The server's name.
        server: String,
        /// Attempts made.
        attempts: u32,
        /// The last failure.
        message: String,
    },
    /// A call did not answer within its timeout; the request was cancelled.
    #[error("the MCP server `{server}` did not answer `{tool}` within {after:?}")]
    Timeout {
        /// The server's name.
        server: String,
        /// The tool called.
        tool: String,
        /// The timeout.
        after: Duration,
    },
    /// The server answered with a JSON-RPC error (e.g. an unknown tool, invalid parameters).
    #[error("the MCP server `{server}` refused `{method}`: {message}")]
    Protocol {
        /// The server's name.
        server: String,
        /// The request (`tools/list`, `tools/call get_time`...).
        method: String,
        /// The server's message.
        message: String,
    },
    /// A tool's input schema is over the caps or cannot be lowered into a dialect.
    #[error("the input schema of MCP tool `{tool}` is refused: {source}")]
    Schema {
        /// The tool (as the server names it).
        tool: String,
        /// Why.
        source: SchemaError,
    },
    /// A tool name that cannot be mapped to one a model can call (providers accept
    /// `[A-Za-z0-9_-]{1,64}`): an empty name, or a prefix outside that.
    #[error("the MCP tool name `{name}` cannot be offered to a model: {reason}")]
    InvalidToolName {
        /// The name (after the prefix, if any).
        name: String,
        /// Why.
        reason: String,
    },
    /// Two tools of one server map to the same name a model can call (`files.read` and
    /// `files_read` are both `files_read`).
    #[error("the MCP tools `{first}` and `{second}` both map to the tool name `{name}`")]
    MappedNameClash {
        /// The name both map to.
        name: String,
        /// The first tool's name on the server.
        first: String,
        /// The second tool's name on the server.
        second: String,
    },
    /// Two tools would have the same name in one agent.
    #[error(
        "the MCP tool `{name}` clashes with {other} of the same name; give the MCP toolset a prefix (`McpToolset::prefix`)"
    )]
    NameClash {
        /// The clashing name.
        name: String,
        /// What it clashes with (`a static tool`, `another dynamic tool`...).
        other: String,
    },
    /// The server sent more tools than [`McpClientBuilder::max_tools`](super::McpClientBuilder::max_tools) allows.
    #[error("the MCP server `{server}` lists {count} tools, more than the cap of {max}")]
    TooManyTools {
        /// The server's name.
        server: String,
        /// How many it listed.
        count: usize,
        /// The cap.
        max: usize,
    },
    /// Serving over a transport failed (binding a socket, the stdio stream).
    #[error("serving MCP failed: {0}")]
    Serve(String),
}
