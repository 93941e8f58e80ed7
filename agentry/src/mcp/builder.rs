//! [`McpClientBuilder`]: where an MCP server is and how a client treats it (timeouts, the
//! [`Reconnect`] policy, the cap on listed tools).

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use tokio::sync::{Mutex, watch};

use super::McpError;
use super::client::{Inner, McpClient};
use super::connect::{Shared, connect_once};

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
pub(super) enum Endpoint {
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

/// Configures an [`McpClient`]: made by [`McpClient::stdio`] or [`McpClient::http`].
#[derive(Clone, Debug)]
pub struct McpClientBuilder {
    pub(super) name: String,
    pub(super) endpoint: Endpoint,
    pub(super) call_timeout: Duration,
    pub(super) connect_timeout: Duration,
    pub(super) reconnect: Reconnect,
    pub(super) max_tools: usize,
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

impl McpClientBuilder {
    pub(super) fn new(name: impl Into<String>, endpoint: Endpoint) -> Self {
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
