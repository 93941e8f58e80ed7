//! [`McpError`]: what can go wrong talking to an MCP server or serving one.

use std::time::Duration;

use crate::schema::SchemaError;

/// The typed error beneath an [`McpError`]: rmcp's `ServiceError` or initialization error,
/// an `io::Error`, another `McpError`... Reach it with [`std::error::Error::source`] and
/// downcast it.
pub type McpCause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// An error of the MCP client or server.
///
/// Inside an agent, an MCP tool's failure reaches the model as the tool's error message
/// (within the tool's retry budget); called directly
/// ([`McpClient::call_tool`](super::McpClient::call_tool)), it is this typed error.
///
/// Its message says what failed in this crate's words (and what a stdio server wrote on
/// stderr); the typed error that caused it, when there is one, is its
/// [`source`](std::error::Error::source), not copied into the message: a transport's error
/// can carry a URL with credentials or the request sent, which a message shown to a model or
/// a log should not.
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
        /// The cause (an `io::Error` starting the process, rmcp's initialization error).
        #[source]
        source: Option<McpCause>,
    },
    /// The connection is closed: the server exited or the transport broke. The next call
    /// reconnects if the client's [`Reconnect`](super::Reconnect) policy allows it.
    #[error("the MCP server `{server}` is gone ({message}); {}", if *.will_reconnect { "the next call reconnects" } else { "it is not reconnected (Reconnect::Never)" })]
    ServerGone {
        /// The server's name.
        server: String,
        /// Why, with what a stdio server wrote on stderr since the last call began.
        message: String,
        /// Whether the next call tries to reconnect.
        will_reconnect: bool,
        /// rmcp's error for the request that found the connection closed, if a request did.
        #[source]
        source: Option<McpCause>,
    },
    /// Every reconnection attempt allowed by the policy failed.
    #[error("the MCP server `{server}` could not be reconnected after {attempts} attempt(s)")]
    ReconnectFailed {
        /// The server's name.
        server: String,
        /// Attempts made.
        attempts: u32,
        /// The last attempt's error: an [`McpError`] (a [`McpError::Connect`]), boxed so
        /// that [`source`](std::error::Error::source) downcasts to it.
        #[source]
        last: McpCause,
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
    /// The server answered with a JSON-RPC error (e.g. an unknown tool, invalid parameters),
    /// or the exchange failed in another way rmcp reports (an unexpected response, a
    /// cancelled request).
    #[error("the MCP server `{server}` refused `{method}`: {message}")]
    Protocol {
        /// The server's name.
        server: String,
        /// The request (`tools/list`, `tools/call get_time`...).
        method: String,
        /// The server's message (or what went wrong).
        message: String,
        /// rmcp's `ServiceError`.
        #[source]
        source: Option<McpCause>,
    },
    /// Tool arguments this client refused before sending anything: MCP tool arguments are a
    /// JSON object (or none).
    #[error("the arguments for MCP tool `{tool}` of `{server}` were not sent: {reason}")]
    InvalidArguments {
        /// The server's name.
        server: String,
        /// The tool called.
        tool: String,
        /// Why (what kind of JSON value was given; never the value itself).
        reason: String,
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
    #[error(
        "the MCP tools `{first}` and `{second}` both map to the tool name `{name}`; leave one of them out (`McpToolsetBuilder::exclude`)"
    )]
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
    #[error("serving MCP failed: {message}")]
    Serve {
        /// What failed.
        message: String,
        /// The cause (an `io::Error`, rmcp's initialization error, the server task's end).
        #[source]
        source: Option<McpCause>,
    },
}

impl McpError {
    /// [`McpError::Serve`] with its cause.
    #[cfg(feature = "mcp-server")]
    pub(super) fn serve(
        message: &str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        McpError::Serve {
            message: message.to_string(),
            source: Some(Box::new(source)),
        }
    }
}
