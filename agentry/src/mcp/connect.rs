//! Starting or reaching a server and the MCP handshake; the client's notification handler.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::io::AsyncReadExt;
use tokio::sync::watch;

use super::McpError;
use super::builder::{Endpoint, McpClientBuilder};

/// How much of a child server's stderr is kept for error messages.
const STDERR_TAIL: usize = 2048;

/// What the notification handler shares with the client.
pub(super) struct Shared {
    /// The cached tool list is out of date.
    pub(super) stale: AtomicBool,
    /// Bumped on every `tools/list_changed`.
    pub(super) changes: watch::Sender<u64>,
}

pub(super) struct Connection {
    pub(super) service: RunningService<RoleClient, Handler>,
    stderr: Option<Arc<StdMutex<String>>>,
}

impl Connection {
    pub(super) fn stderr_tail(&self) -> String {
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
pub(super) struct Handler {
    shared: Arc<Shared>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("agentry", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.shared.stale.store(true, Ordering::SeqCst);
        self.shared.changes.send_modify(|n| *n += 1);
        tracing::debug!("MCP server sent tools/list_changed");
    }
}

pub(super) fn gone_message(conn: &Connection) -> String {
    let tail = conn.stderr_tail();
    if tail.is_empty() {
        "the connection closed".to_string()
    } else {
        format!("the connection closed; the server's last stderr output: {tail}")
    }
}

pub(super) async fn connect_once(
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
