//! [`McpClient`]: one connection to an MCP server (a child process over stdio, or streamable
//! HTTP), with per-call timeouts, a cached tool list refreshed on `tools/list_changed`, and a
//! reconnect policy for a server that died.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use rmcp::ServiceError;
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use serde_json::Value;
use tokio::sync::{Mutex, watch};

use super::McpError;
use super::builder::{Endpoint, McpClientBuilder, Reconnect};
use super::connect::{Connection, Shared, connect_once};
use super::stderr::Mark;

/// A connection to one MCP server.
///
/// Cheap to clone (clones share the connection). Calls run concurrently over the one
/// connection.
///
/// ```no_run
/// # async fn demo() -> Result<(), agentry::mcp::McpError> {
/// use agentry::mcp::McpClient;
/// use std::time::Duration;
///
/// let time = McpClient::stdio("time", "uvx")
///     .args(["mcp-server-time"])
///     .call_timeout(Duration::from_secs(10))
///     .connect()
///     .await?;
/// for tool in time.list_tools().await?.iter() {
///     println!("{}", tool.name);
/// }
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpClient {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    pub(super) config: McpClientBuilder,
    pub(super) shared: Arc<Shared>,
    pub(super) conn: Mutex<Option<Arc<Connection>>>,
    pub(super) tools: StdMutex<Option<Arc<[Tool]>>>,
    pub(super) list_lock: Mutex<()>,
}

impl fmt::Debug for McpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpClient")
            .field("name", &self.inner.config.name)
            .field("call_timeout", &self.inner.config.call_timeout)
            .field("reconnect", &self.inner.config.reconnect)
            .finish_non_exhaustive()
    }
}

impl McpClient {
    /// A server run as a child process speaking MCP on its stdin/stdout. `name` is how errors
    /// and logs call it.
    pub fn stdio(name: impl Into<String>, program: impl Into<PathBuf>) -> McpClientBuilder {
        McpClientBuilder::new(
            name,
            Endpoint::Stdio {
                program: program.into(),
                args: Vec::new(),
                env: BTreeMap::new(),
                cwd: None,
            },
        )
    }

    /// A server reached over streamable HTTP at `url` (e.g. `http://127.0.0.1:8000/mcp`).
    ///
    /// This build's HTTP client has no TLS backend; for `https://` servers enable rmcp's
    /// `reqwest` feature in your own `Cargo.toml`.
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> McpClientBuilder {
        McpClientBuilder::new(name, Endpoint::Http { url: url.into() })
    }

    /// The server's name, as given to the builder.
    pub fn name(&self) -> &str {
        &self.inner.config.name
    }

    /// A receiver that changes each time the server sends `tools/list_changed`.
    pub fn list_changes(&self) -> watch::Receiver<u64> {
        self.inner.shared.changes.subscribe()
    }

    /// The server's tools: listed once, then served from a cache until the server sends
    /// `tools/list_changed` (or the connection is re-made).
    pub async fn list_tools(&self) -> Result<Arc<[Tool]>, McpError> {
        if !self.inner.shared.stale.load(Ordering::SeqCst)
            && let Some(tools) = self.cached_tools()
        {
            return Ok(tools);
        }
        let _one_lister = self.inner.list_lock.lock().await;
        if !self.inner.shared.stale.load(Ordering::SeqCst)
            && let Some(tools) = self.cached_tools()
        {
            return Ok(tools);
        }
        // Cleared before listing: a change announced while the list is in flight marks it
        // stale again.
        self.inner.shared.stale.store(false, Ordering::SeqCst);
        let conn = self.connection().await?;
        let began = conn.begin_call();
        let listed = conn.service.peer().list_all_tools();
        let tools = match tokio::time::timeout(self.inner.config.call_timeout, listed).await {
            Ok(Ok(tools)) => tools,
            Ok(Err(error)) => {
                self.inner.shared.stale.store(true, Ordering::SeqCst);
                return Err(self.service_error(&conn, began, "tools/list", error).await);
            }
            Err(_) => {
                self.inner.shared.stale.store(true, Ordering::SeqCst);
                return Err(McpError::Timeout {
                    server: self.name().to_string(),
                    tool: "tools/list".to_string(),
                    after: self.inner.config.call_timeout,
                });
            }
        };
        if tools.len() > self.inner.config.max_tools {
            return Err(McpError::TooManyTools {
                server: self.name().to_string(),
                count: tools.len(),
                max: self.inner.config.max_tools,
            });
        }
        let tools: Arc<[Tool]> = tools.into();
        *self.inner.tools.lock().unwrap_or_else(|e| e.into_inner()) = Some(tools.clone());
        Ok(tools)
    }

    /// Marks the cached tool list stale, so the next [`McpClient::list_tools`] asks the
    /// server again (what `tools/list_changed` does).
    pub fn mark_tools_stale(&self) {
        self.inner.shared.stale.store(true, Ordering::SeqCst);
    }

    fn cached_tools(&self) -> Option<Arc<[Tool]>> {
        self.inner
            .tools
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Calls a tool with JSON arguments (an object, or `null` for none), under the client's
    /// call timeout.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, McpError> {
        self.call_tool_with_timeout(name, arguments, self.inner.config.call_timeout)
            .await
    }

    /// [`McpClient::call_tool`] with its own timeout.
    pub async fn call_tool_with_timeout(
        &self,
        name: &str,
        arguments: Value,
        timeout: Duration,
    ) -> Result<CallToolResult, McpError> {
        let mut params = CallToolRequestParams::new(name.to_string());
        match arguments {
            Value::Object(map) => params = params.with_arguments(map),
            Value::Null => {}
            other => {
                return Err(McpError::InvalidArguments {
                    server: self.name().to_string(),
                    tool: name.to_string(),
                    reason: format!(
                        "they must be a JSON object (or null for none), not {}",
                        json_kind(&other)
                    ),
                });
            }
        }
        let conn = self.connection().await?;
        let began = conn.begin_call();
        let call = conn.service.peer().call_tool(params);
        match tokio::time::timeout(timeout, call).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(self
                .service_error(&conn, began, &format!("tools/call {name}"), error)
                .await),
            Err(_) => Err(McpError::Timeout {
                server: self.name().to_string(),
                tool: name.to_string(),
                after: timeout,
            }),
        }
    }

    /// Whether the connection is open (a closed one is re-made by the next call, if the
    /// policy allows).
    pub async fn is_connected(&self) -> bool {
        match &*self.inner.conn.lock().await {
            Some(conn) => !conn.service.is_closed(),
            None => false,
        }
    }

    /// Closes the connection (a stdio server's process is stopped). A later call reconnects
    /// if the policy allows.
    pub async fn close(&self) {
        self.inner.conn.lock().await.take();
    }

    /// The open connection, reconnecting under the policy if there is none.
    async fn connection(&self) -> Result<Arc<Connection>, McpError> {
        let mut slot = self.inner.conn.lock().await;
        if let Some(conn) = &*slot {
            if !conn.service.is_closed() {
                return Ok(conn.clone());
            }
            let message = conn.gone_message(None).await;
            *slot = None;
            if self.inner.config.reconnect == Reconnect::Never {
                return Err(self.gone(message, None));
            }
        }
        let Reconnect::OnNextCall {
            max_attempts,
            backoff,
        } = self.inner.config.reconnect
        else {
            return Err(self.gone("the connection was closed".to_string(), None));
        };
        let attempts = max_attempts.max(1);
        let mut wait = backoff;
        let mut last = None;
        for attempt in 1..=attempts {
            match connect_once(&self.inner.config, &self.inner.shared).await {
                Ok(conn) => {
                    tracing::info!(server = %self.name(), attempt, "reconnected to the MCP server");
                    self.inner.shared.stale.store(true, Ordering::SeqCst);
                    let conn = Arc::new(conn);
                    *slot = Some(conn.clone());
                    return Ok(conn);
                }
                Err(error) => {
                    tracing::warn!(server = %self.name(), attempt, %error, "reconnecting to the MCP server failed");
                    last = Some(error);
                }
            }
            if attempt < attempts {
                tokio::time::sleep(wait).await;
                wait = wait.saturating_mul(2);
            }
        }
        Err(McpError::ReconnectFailed {
            server: self.name().to_string(),
            attempts,
            last: Box::new(last.unwrap_or_else(|| McpError::Connect {
                server: self.name().to_string(),
                message: "no attempt was made".to_string(),
                source: None,
            })),
        })
    }

    fn gone(&self, message: String, source: Option<ServiceError>) -> McpError {
        McpError::ServerGone {
            server: self.name().to_string(),
            message,
            will_reconnect: self.inner.config.reconnect != Reconnect::Never,
            source: source.map(|e| Box::new(e) as _),
        }
    }

    /// Maps a failed request (begun at `began` in the server's stderr); a closed transport
    /// drops the connection so the next call reconnects.
    async fn service_error(
        &self,
        conn: &Arc<Connection>,
        began: Option<Mark>,
        method: &str,
        error: ServiceError,
    ) -> McpError {
        match error {
            ServiceError::McpError(ref data) => McpError::Protocol {
                server: self.name().to_string(),
                method: method.to_string(),
                message: data.message.to_string(),
                source: Some(Box::new(error)),
            },
            ServiceError::Timeout { timeout } => McpError::Timeout {
                server: self.name().to_string(),
                tool: method.to_string(),
                after: timeout,
            },
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                let mut detail = conn.gone_message(began).await;
                if let ServiceError::TransportSend(_) = &error {
                    detail = format!("a request could not be sent; {detail}");
                }
                let mut slot = self.inner.conn.lock().await;
                if slot.as_ref().is_some_and(|c| Arc::ptr_eq(c, conn)) {
                    *slot = None;
                }
                self.gone(detail, Some(error))
            }
            other => McpError::Protocol {
                server: self.name().to_string(),
                method: method.to_string(),
                message: service_failure(&other).to_string(),
                source: Some(Box::new(other)),
            },
        }
    }
}

/// What kind of JSON value `value` is, for a message that must not quote it.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A failure of the exchange other than the server's own error, in words that carry none of
/// the error's payload (its source keeps it).
fn service_failure(error: &ServiceError) -> &'static str {
    match error {
        ServiceError::UnexpectedResponse => "it answered with an unexpected response type",
        ServiceError::Cancelled { .. } => "the request was cancelled",
        _ => "the request failed",
    }
}
