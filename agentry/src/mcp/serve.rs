//! Serving an [`McpServer`] over stdio and streamable HTTP.

use std::net::SocketAddr;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{McpError, McpServer};

/// The path [`McpServer::serve_http`] serves MCP on.
pub const HTTP_PATH: &str = "/mcp";

impl<C, S> McpServer<C, S>
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    /// Serves on this process's stdin/stdout until the client closes them. Write logs to
    /// stderr: stdout carries the protocol.
    pub async fn serve_stdio(self) -> Result<(), McpError> {
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| McpError::serve("the stdio handshake failed", e))?;
        running
            .waiting()
            .await
            .map_err(|e| McpError::serve("the stdio server stopped", e))?;
        Ok(())
    }

    /// The server as a tower service speaking streamable HTTP (one session per client), to
    /// mount in your own router; `config` sets e.g. the allowed `Host`s (loopback names by
    /// default).
    pub fn http_service(
        self,
        config: StreamableHttpServerConfig,
    ) -> StreamableHttpService<Self, LocalSessionManager> {
        StreamableHttpService::new(move || Ok(self.clone()), Default::default(), config)
    }

    /// Serves streamable HTTP on `listener` at [`HTTP_PATH`], in a background task, until
    /// the returned handle is shut down or dropped.
    ///
    /// ```no_run
    /// # async fn demo(server: agentry::mcp::McpServer) -> Result<(), Box<dyn std::error::Error>> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// let http = server.serve_http(listener).await?;
    /// println!("MCP on {}", http.url());
    /// # Ok(()) }
    /// ```
    pub async fn serve_http(self, listener: TcpListener) -> Result<McpHttpServer, McpError> {
        let addr = listener
            .local_addr()
            .map_err(|e| McpError::serve("the listener has no address", e))?;
        let config = StreamableHttpServerConfig::default();
        let sessions = config.cancellation_token.clone();
        let service = self.http_service(config);
        let router = axum::Router::new().nest_service(HTTP_PATH, service);
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let served = axum::serve(listener, router)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await;
            if let Err(error) = served {
                tracing::warn!(%error, "the MCP HTTP server stopped");
            }
        });
        Ok(McpHttpServer {
            addr,
            stop: Some(stop),
            task: Some(task),
            cancel_sessions: Box::new(move || sessions.cancel()),
        })
    }
}

/// A running streamable HTTP server (see [`McpServer::serve_http`]); stops when shut down or
/// dropped.
pub struct McpHttpServer {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
    cancel_sessions: Box<dyn Fn() + Send + Sync>,
}

impl std::fmt::Debug for McpHttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttpServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl McpHttpServer {
    /// The socket address served.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The MCP endpoint, e.g. `http://127.0.0.1:40123/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{HTTP_PATH}", self.addr)
    }

    /// Stops accepting connections, ends the open sessions and waits for the server task.
    pub async fn shutdown(mut self) {
        self.stop_now();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }

    fn stop_now(&mut self) {
        (self.cancel_sessions)();
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl Drop for McpHttpServer {
    fn drop(&mut self) {
        self.stop_now();
    }
}
