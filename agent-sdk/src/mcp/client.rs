//! [`McpClient`]: one connection to an MCP server (a child process over stdio, or streamable
//! HTTP), with per-call timeouts, a cached tool list refreshed on `tools/list_changed`, and a
//! reconnect policy for a server that died.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion, Tool,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt};
use serde_json::Value;
use tokio::io::AsyncReadExt;
use tokio::sync::{Mutex, watch};

use super::McpError;

/// How a client gets back to a server whose connection closed (the process exited, the
/// HTTP session ended).
///
/// The call that finds the server gone fails with [`McpError::ServerGone`] (a tool call may
/// have side effects, so it is never silently sent twice); the policy decides what the
/// *next* call does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reconnect {
    /// Never reconnect: every later call fails with [`McpError::ServerGone`].
    Never,
    /// Reconnect on the next call, trying up to `max_attempts` times (waiting `backoff`,
    /// doubled after each failure) before failing with [`McpError::ReconnectFailed`].
    OnNextCall {
        /// Connection attempts per call that finds the server gone (at least 1).
        max_attempts: u32,
        /// The wait before the second attempt.
        backoff: Duration,
    },
}

impl Default for Reconnect {
    /// Reconnect on the next call, 3 attempts from 100 ms.
    fn default() -> Self {
        Reconnect::OnNextCall {
            max_attempts: 3,
            backoff: Duration::from_millis(100),
        }
    }
}

/// Where the server is.
#[derive(Clone)]
enum Endpoint {
    Stdio {
        program: PathBuf,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    },
    Http {
        url: String,
    },
}

/// Environment values are left out: they often hold API keys.
impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Endpoint::Stdio {
                program, args, env, ..
            } => f
                .debug_struct("Stdio")
                .field("program", program)
                .field("args", args)
                .field("env_keys", &env.keys().collect::<Vec<_>>())
                .finish_non_exhaustive(),
            Endpoint::Http { url } => f.debug_struct("Http").field("url", url).finish(),
        }
    }
}

/// The default timeout of one tool call.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// The default timeout of starting a server and the MCP handshake.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// The default cap on the tools one server may list.
pub const DEFAULT_MAX_TOOLS: usize = 1024;
/// How much of a child server's stderr is kept for error messages.
const STDERR_TAIL: usize = 2048;

/// Configures an [`McpClient`]: made by [`McpClient::stdio`] or [`McpClient::http`].
#[derive(Clone, Debug)]
pub struct McpClientBuilder {
    name: String,
    endpoint: Endpoint,
    call_timeout: Duration,
    connect_timeout: Duration,
    reconnect: Reconnect,
    max_tools: usize,
}

impl McpClientBuilder {
    /// Adds a command-line argument (stdio servers).
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        if let Endpoint::Stdio { args, .. } = &mut self.endpoint {
            args.push(arg.into());
        }
        self
    }

    /// Adds command-line arguments (stdio servers).
    pub fn args(mut self, more: impl IntoIterator<Item = impl Into<String>>) -> Self {
        if let Endpoint::Stdio { args, .. } = &mut self.endpoint {
            args.extend(more.into_iter().map(Into::into));
        }
        self
    }

    /// Sets an environment variable of the server process (stdio servers).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let Endpoint::Stdio { env, .. } = &mut self.endpoint {
            env.insert(key.into(), value.into());
        }
        self
    }

    /// Sets the server process's working directory (stdio servers).
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        if let Endpoint::Stdio { cwd, .. } = &mut self.endpoint {
            *cwd = Some(dir.into());
        }
        self
    }

    /// How long one tool call may take (default [`DEFAULT_CALL_TIMEOUT`]); a late call is
    /// cancelled (`notifications/cancelled`) and fails with [`McpError::Timeout`].
    pub fn call_timeout(mut self, after: Duration) -> Self {
        self.call_timeout = after;
        self
    }

    /// How long starting the server and the handshake may take (default
    /// [`DEFAULT_CONNECT_TIMEOUT`]).
    pub fn connect_timeout(mut self, after: Duration) -> Self {
        self.connect_timeout = after;
        self
    }

    /// What the next call does after the server went away (default
    /// [`Reconnect::default`]).
    pub fn reconnect(mut self, policy: Reconnect) -> Self {
        self.reconnect = policy;
        self
    }

    /// The most tools the server may list (default [`DEFAULT_MAX_TOOLS`]); more is
    /// [`McpError::TooManyTools`].
    pub fn max_tools(mut self, max: usize) -> Self {
        self.max_tools = max;
        self
    }

    /// Starts (stdio) or reaches (HTTP) the server and performs the MCP handshake.
    pub async fn connect(self) -> Result<McpClient, McpError> {
        let (tx, _) = watch::channel(0u64);
        let shared = Arc::new(Shared {
            stale: AtomicBool::new(true),
            changes: tx,
        });
        let conn = connect_once(&self, &shared).await?;
        Ok(McpClient {
            inner: Arc::new(Inner {
                config: self,
                shared,
                conn: Mutex::new(Some(Arc::new(conn))),
                tools: StdMutex::new(None),
                list_lock: Mutex::new(()),
            }),
        })
    }
}

/// A connection to one MCP server.
///
/// Cheap to clone (clones share the connection). Calls run concurrently over the one
/// connection.
///
/// ```no_run
/// # async fn demo() -> Result<(), agent_sdk::mcp::McpError> {
/// use agent_sdk::mcp::McpClient;
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
    inner: Arc<Inner>,
}

struct Inner {
    config: McpClientBuilder,
    shared: Arc<Shared>,
    conn: Mutex<Option<Arc<Connection>>>,
    tools: StdMutex<Option<Arc<[Tool]>>>,
    list_lock: Mutex<()>,
}

/// What the notification handler shares with the client.
struct Shared {
    /// The cached tool list is out of date.
    stale: AtomicBool,
    /// Bumped on every `tools/list_changed`.
    changes: watch::Sender<u64>,
}

struct Connection {
    service: RunningService<RoleClient, Handler>,
    stderr: Option<Arc<StdMutex<String>>>,
}

impl Connection {
    fn stderr_tail(&self) -> String {
        self.stderr
            .as_ref()
            .map(|tail| {
                tail.lock()
                    .map(|t| t.trim().to_string())
                    .unwrap_or_default()
            })
            .unwrap_or_default()
    }
}

/// The client side's handler: identifies the client and notes list changes.
struct Handler {
    shared: Arc<Shared>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("agent-sdk", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.shared.stale.store(true, Ordering::SeqCst);
        self.shared.changes.send_modify(|n| *n += 1);
        tracing::debug!("MCP server sent tools/list_changed");
    }
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
        let listed = conn.service.peer().list_all_tools();
        let tools = match tokio::time::timeout(self.inner.config.call_timeout, listed).await {
            Ok(Ok(tools)) => tools,
            Ok(Err(error)) => {
                self.inner.shared.stale.store(true, Ordering::SeqCst);
                return Err(self.service_error(&conn, "tools/list", error).await);
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
                return Err(McpError::Protocol {
                    server: self.name().to_string(),
                    method: format!("tools/call {name}"),
                    message: format!("tool arguments must be a JSON object, not {other}"),
                });
            }
        }
        let conn = self.connection().await?;
        let call = conn.service.peer().call_tool(params);
        match tokio::time::timeout(timeout, call).await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(self
                .service_error(&conn, &format!("tools/call {name}"), error)
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
            let message = gone_message(conn);
            *slot = None;
            if self.inner.config.reconnect == Reconnect::Never {
                return Err(self.gone(message));
            }
        }
        let Reconnect::OnNextCall {
            max_attempts,
            backoff,
        } = self.inner.config.reconnect
        else {
            return Err(self.gone("the connection was closed".to_string()));
        };
        let attempts = max_attempts.max(1);
        let mut wait = backoff;
        let mut last = String::new();
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
                    last = error.to_string();
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
            message: last,
        })
    }

    fn gone(&self, message: String) -> McpError {
        McpError::ServerGone {
            server: self.name().to_string(),
            message,
            will_reconnect: self.inner.config.reconnect != Reconnect::Never,
        }
    }

    /// Maps a failed request; a closed transport drops the connection so the next call
    /// reconnects.
    async fn service_error(
        &self,
        conn: &Arc<Connection>,
        method: &str,
        error: ServiceError,
    ) -> McpError {
        match error {
            ServiceError::McpError(data) => McpError::Protocol {
                server: self.name().to_string(),
                method: method.to_string(),
                message: data.message.into_owned(),
            },
            ServiceError::Timeout { timeout } => McpError::Timeout {
                server: self.name().to_string(),
                tool: method.to_string(),
                after: timeout,
            },
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                // Let the process exit and its stderr drain, so the message says why.
                tokio::time::sleep(Duration::from_millis(20)).await;
                let mut detail = gone_message(conn);
                if let ServiceError::TransportSend(e) = &error {
                    detail = format!("{e}; {detail}");
                }
                let mut slot = self.inner.conn.lock().await;
                if slot.as_ref().is_some_and(|c| Arc::ptr_eq(c, conn)) {
                    *slot = None;
                }
                self.gone(detail)
            }
            other => McpError::Protocol {
                server: self.name().to_string(),
                method: method.to_string(),
                message: other.to_string(),
            },
        }
    }
}

fn gone_message(conn: &Connection) -> String {
    let tail = conn.stderr_tail();
    if tail.is_empty() {
        "the connection closed".to_string()
    } else {
        format!("the connection closed; the server's last stderr output: {tail}")
    }
}

impl McpClientBuilder {
    fn new(name: impl Into<String>, endpoint: Endpoint) -> Self {
        McpClientBuilder {
            name: name.into(),
            endpoint,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            reconnect: Reconnect::default(),
            max_tools: DEFAULT_MAX_TOOLS,
        }
    }
}

async fn connect_once(
    config: &McpClientBuilder,
    shared: &Arc<Shared>,
) -> Result<Connection, McpError> {
    let fail = |message: String| McpError::Connect {
        server: config.name.clone(),
        message,
    };
    let handler = Handler {
        shared: shared.clone(),
    };
    let work = async {
        match &config.endpoint {
            Endpoint::Stdio {
                program,
                args,
                env,
                cwd,
            } => {
                let mut command = tokio::process::Command::new(program);
                command.args(args).envs(env);
                if let Some(dir) = cwd {
                    command.current_dir(dir);
                }
                let (process, stderr) = TokioChildProcess::builder(command)
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .map_err(|e| fail(format!("could not start `{}`: {e}", program.display())))?;
                let tail = stderr.map(|stderr| {
                    let tail = Arc::new(StdMutex::new(String::new()));
                    tokio::spawn(keep_tail(stderr, tail.clone(), config.name.clone()));
                    tail
                });
                match handler.serve(process).await {
                    Ok(service) => Ok(Connection {
                        service,
                        stderr: tail,
                    }),
                    Err(error) => {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        let tail = tail
                            .map(|t| t.lock().map(|t| t.trim().to_string()).unwrap_or_default())
                            .unwrap_or_default();
                        Err(fail(if tail.is_empty() {
                            error.to_string()
                        } else {
                            format!("{error}; the server's stderr: {tail}")
                        }))
                    }
                }
            }
            Endpoint::Http { url } => {
                let transport = StreamableHttpClientTransport::from_uri(url.as_str());
                let service = handler
                    .serve(transport)
                    .await
                    .map_err(|e| fail(e.to_string()))?;
                Ok(Connection {
                    service,
                    stderr: None,
                })
            }
        }
    };
    tokio::time::timeout(config.connect_timeout, work)
        .await
        .map_err(|_| fail(format!("no handshake within {:?}", config.connect_timeout)))?
}

/// Reads a child's stderr in chunks (a line may be of any length), logging it and keeping
/// the last [`STDERR_TAIL`] bytes for error messages.
async fn keep_tail(
    mut stderr: tokio::process::ChildStderr,
    tail: Arc<StdMutex<String>>,
    server: String,
) {
    let mut buf = [0u8; 1024];
    while let Ok(n) = stderr.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let chunk = String::from_utf8_lossy(&buf[..n]);
        tracing::debug!(server = %server, stderr = %chunk.trim_end());
        let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
        tail.push_str(&chunk);
        if tail.len() > STDERR_TAIL {
            let mut cut = tail.len() - STDERR_TAIL;
            while !tail.is_char_boundary(cut) {
                cut += 1;
            }
            tail.drain(..cut);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_leaves_environment_values_out() {
        let builder = McpClient::stdio("gh", "github-mcp").env("GITHUB_TOKEN", "ghp_secret123");
        let shown = format!("{builder:?}");
        assert!(shown.contains("GITHUB_TOKEN"), "{shown}");
        assert!(!shown.contains("ghp_secret123"), "{shown}");
    }
}
