//! Model Context Protocol, with the official Rust SDK [`rmcp`]: the client with the feature
//! `mcp-client`, the server with `mcp-server`, both with `mcp`.
//!
//! **Client** (`mcp-client`): [`McpClient`] connects to a server — a child process over stdio
//! ([`McpClient::stdio`]) or streamable HTTP ([`McpClient::http`]) — with a timeout per call
//! and a [`Reconnect`] policy for a server that died. [`McpToolset`] lists its tools, maps
//! names a provider would refuse (`files.read` is offered as `files_read`, and called under
//! its own name), checks their schemas (the schema caps, and lowering into the dialects you name) and
//! hands them to an agent beside its static `#[tool]`s with [`AgentBuilder::mcp_tools`]
//! (optionally prefixed; a name clash is a typed error). Arguments are validated against the
//! server's schema before each call; results (text, images, embedded resources,
//! `structuredContent`, `isError`) become tool outputs. `tools/list_changed` marks the
//! client's cached list stale; [`McpToolset::refreshed`] lists again.
//!
//! **Server** (`mcp-server`): [`McpServer`] serves `#[tool]`s ([`Typed`](crate::agent::Typed)), dynamic
//! tools, an agent's tools ([`McpServerBuilder::agent_tools`]) or an agent itself
//! ([`AgentTool`]) over stdio ([`McpServer::serve_stdio`]) or streamable HTTP
//! ([`McpServer::serve_http`]), with the same schemas the tools show a model, and a typed
//! context per request built by a closure from the MCP request.
//!
//! [`AgentBuilder::mcp_tools`]: crate::agent::AgentBuilder::mcp_tools

#[cfg(feature = "mcp-server")]
mod agent_tool;
#[cfg(feature = "mcp-client")]
mod builder;
#[cfg(feature = "mcp-client")]
mod client;
#[cfg(feature = "mcp-client")]
mod connect;
pub(crate) mod content;
mod error;
#[cfg(feature = "mcp-client")]
mod filter;
#[cfg(feature = "mcp-client")]
mod names;
#[cfg(feature = "mcp-server")]
mod serve;
#[cfg(feature = "mcp-server")]
mod server;
#[cfg(feature = "mcp-client")]
mod stderr;
#[cfg(feature = "mcp-client")]
mod toolset;

#[cfg(feature = "mcp-server")]
pub use agent_tool::AgentTool;
#[cfg(feature = "mcp-client")]
pub use builder::{
    DEFAULT_CALL_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_TOOLS, McpClientBuilder, Reconnect,
};
#[cfg(feature = "mcp-client")]
pub use client::McpClient;
pub use content::StructuredContent;
pub use error::{McpCause, McpError};
#[cfg(feature = "mcp-server")]
pub use serve::{HTTP_PATH, McpHttpServer};
#[cfg(feature = "mcp-server")]
pub use server::{McpRequest, McpServer, McpServerBuilder};
#[cfg(feature = "mcp-client")]
pub use toolset::{McpTool, McpToolset, McpToolsetBuilder};

/// The rmcp crate this module is built on, for its protocol types and transports.
pub use rmcp;
