//! Starting or reaching a server and the MCP handshake; the client's notification handler.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::sync::watch;

use super::builder::{Endpoint, McpClientBuilder};
use super::stderr::{EOF_WAIT, Mark, StderrLog};
use super::{McpCause, McpError};

/// What the notification handler shares with the client.
pub(super) struct Shared {
    /// The cached tool list is out of date.
    pub(super) stale: AtomicBool,
    /// Bumped on every `tools/list_changed`.
    pub(super) changes: watch::Sender<u64>,
}

pub(super) struct Connection {
    pub(super) service: RunningService<RoleClient, Handler>,
    stderr: Option<Arc<StderrLog>>,
}

impl Connection {
    /// Marks the start of a request in the server's stderr (stdio servers).
    pub(super) fn begin_call(&self) -> Option<Mark> {
        self.stderr.as_ref().map(|log| log.begin_call())
    }

    /// Why the connection closed, for a request that began at `since` (or, without one,
    /// since the last request began): with what the server wrote on stderr since then,
    /// once the reader reached its end of file (waited for at most [`EOF_WAIT`]).
    pub(super) async fn gone_message(&self, since: Option<Mark>) -> String {
        let Some(log) = &self.stderr else {
            return "the connection closed".to_string();
        };
        log.wait_eof(EOF_WAIT).await;
        let written = match since {
            Some(mark) => log.since(mark),
            None => log.since_last_call(),
        };
        if written.is_empty() {
            "the connection closed".to_string()
        } else {
            format!("the connection closed; the server's stderr since the last call: {written}")
        }
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

pub(super) async fn connect_once(
    config: &McpClientBuilder,
    shared: &Arc<Shared>,
) -> Result<Connection, McpError> {
    let fail = |message: String, source: Option<McpCause>| McpError::Connect {
        server: config.name.clone(),
        message,
        source,
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
                    .map_err(|e| {
                        let message =
                            format!("could not start `{}` ({})", program.display(), e.kind());
                        fail(message, Some(Box::new(e)))
                    })?;
                let log = stderr.map(|stderr| StderrLog::spawn(stderr, config.name.clone()));
                match handler.serve(process).await {
                    Ok(service) => Ok(Connection {
                        service,
                        stderr: log,
                    }),
                    Err(error) => {
                        // The transport is dropped: the process ends and its stderr with it.
                        let tail = match &log {
                            Some(log) => {
                                log.wait_eof(EOF_WAIT).await;
                                log.since(Mark::default())
                            }
                            None => String::new(),
                        };
                        let message = if tail.is_empty() {
                            "the MCP handshake failed".to_string()
                        } else {
                            format!("the MCP handshake failed; the server's stderr: {tail}")
                        };
                        Err(fail(message, Some(Box::new(error))))
                    }
                }
            }
            Endpoint::Http { url } => {
                let transport = StreamableHttpClientTransport::from_uri(url.as_str());
                let service = handler.serve(transport).await.map_err(|e| {
                    fail(
                        "the MCP handshake over HTTP failed".to_string(),
                        Some(Box::new(e)),
                    )
                })?;
                Ok(Connection {
                    service,
                    stderr: None,
                })
            }
        }
    };
    tokio::time::timeout(config.connect_timeout, work)
        .await
        .map_err(|_| {
            fail(
                format!("no handshake within {:?}", config.connect_timeout),
                None,
            )
        })?
}

#[cfg(test)]
mod tests {
    use super::super::McpClient;
    use super::*;

    #[tokio::test]
    async fn a_failed_handshake_quotes_stderr_written_after_the_process_ended() {
        // A launcher that exits at once (closing the protocol's stdout) while what it started
        // keeps stderr open and says why 300 ms later, as `npx`- or `uvx`-style wrappers do.
        let script = "(exec >&-; sleep 0.3; echo 'fatal: config file missing' >&2) & exit 0";
        let err = McpClient::stdio("launcher", "sh")
            .args(["-c", script])
            .connect()
            .await
            .expect_err("no handshake");
        assert!(matches!(err, McpError::Connect { .. }), "{err:?}");
        assert!(
            err.to_string().contains("fatal: config file missing"),
            "the stderr is waited for: {err}"
        );
    }

    #[tokio::test]
    async fn a_program_that_cannot_start_keeps_its_io_error_as_the_source() {
        let err = McpClient::stdio("missing", "/nonexistent/agentry-no-such-server")
            .connect()
            .await
            .expect_err("nothing to start");
        assert!(matches!(err, McpError::Connect { .. }), "{err:?}");
        let io = std::error::Error::source(&err)
            .and_then(|e| e.downcast_ref::<std::io::Error>())
            .expect("the io::Error is the source");
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
        assert!(err.to_string().contains("not found"), "{err}");
    }
}
