//! A throwaway Postgres server for tests: `initdb` and `pg_ctl` into a temporary directory,
//! listening on a free loopback port, stopped when dropped.
//!
//! The binaries come from the distribution's `postgresql` package (found through
//! `pg_config --bindir`, `/usr/lib/postgresql/*/bin` or `PATH`). Postgres refuses to run as
//! root, so when the test process is root the server runs as the unprivileged user `nobody`
//! with a data directory owned by it. When Postgres is missing or cannot start,
//! [`PostgresServer::start`] returns an error that says how to install it: tests that need it
//! fail, they never pass by skipping.
//!
//! ```no_run
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use agentry::testing::PostgresServer;
//!
//! let server = PostgresServer::shared().expect("postgres");
//! let url = server.create_database().expect("database");
//! // connect to `url`, e.g. with `PostgresCheckpointer::connect(&url)`
//! # });
//! ```

use std::fmt;
use std::net::TcpListener;
use std::os::unix::fs::{PermissionsExt, chown};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How to get the Postgres binaries, said by every error of the harness.
const INSTALL_HINT: &str = "install Postgres with `apt-get install postgresql` (Debian/Ubuntu; \
     `.ci/run` does this), or put its `bin` directory (with `initdb`, `pg_ctl`) on PATH";

/// Why the test Postgres server could not be started.
///
/// The error that caused it (an `io::Error` running a server binary or binding a port), when
/// there is one, is its [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
#[error("cannot start a test Postgres server: {reason}; {INSTALL_HINT}")]
pub struct PostgresHarnessError {
    reason: String,
    #[source]
    source: Option<std::io::Error>,
}

impl PostgresHarnessError {
    fn new(reason: impl Into<String>) -> Self {
        PostgresHarnessError {
            reason: reason.into(),
            source: None,
        }
    }

    /// `reason`, caused by `source`.
    fn io(reason: impl Into<String>, source: std::io::Error) -> Self {
        PostgresHarnessError {
            reason: reason.into(),
            source: Some(source),
        }
    }
}

/// A Postgres server started for tests, stopped (and its directory removed) on drop.
///
/// A watchdog process also stops it when the test process dies without dropping it (a panic
/// with `panic = "abort"`, a signal, or the [`shared`](PostgresServer::shared) server of a
/// test binary, which is never dropped).
pub struct PostgresServer {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    run_as: Option<(u32, u32)>,
}

static SHARED: OnceLock<Result<PostgresServer, String>> = OnceLock::new();
static NEXT_DB: AtomicU64 = AtomicU64::new(0);

impl PostgresServer {
    /// Starts a new server (`fsync` off: for tests, not for data you keep).
    pub fn start() -> Result<Self, PostgresHarnessError> {
        Self::start_with_settings(&["fsync=off", "synchronous_commit=off"])
    }

    /// Starts a new server with Postgres' default durability settings (`fsync` on), for
    /// benchmarks that should pay what a real deployment pays.
    pub fn start_durable() -> Result<Self, PostgresHarnessError> {
        Self::start_with_settings(&[])
    }

    /// Starts a new server with these `name=value` settings (e.g. `"synchronous_commit=off"`).
    pub fn start_with_settings(settings: &[&str]) -> Result<Self, PostgresHarnessError> {
        let mut options = Vec::new();
        for setting in settings {
            if !setting.contains('=') || setting.contains(char::is_whitespace) {
                return Err(PostgresHarnessError::new(format!(
                    "setting {setting:?} is not `name=value` without spaces"
                )));
            }
            options.push(format!("-c {setting}"));
        }
        Self::start_with(&options.iter().map(String::as_str).collect::<Vec<_>>())
    }

    /// One server per test process, started on first use. Give each test its own database
    /// with [`create_database`](Self::create_database).
    pub fn shared() -> Result<&'static PostgresServer, PostgresHarnessError> {
        SHARED
            .get_or_init(|| Self::start().map_err(|e| e.reason))
            .as_ref()
            .map_err(|reason| PostgresHarnessError::new(reason.clone()))
    }

    /// The loopback port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The connection URL of the `postgres` database (user `postgres`, no password).
    pub fn url(&self) -> String {
        self.database_url("postgres")
    }

    /// The connection URL of the database `name` on this server.
    pub fn database_url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// Creates a new, empty database and returns its URL.
    pub fn create_database(&self) -> Result<String, PostgresHarnessError> {
        let name = format!(
            "test_{}_{}",
            std::process::id(),
            NEXT_DB.fetch_add(1, Ordering::Relaxed)
        );
        let psql = self.bin.join("psql");
        let out = Command::new(&psql)
            .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1"])
            .args(["-U", "postgres", "-d", "postgres", "-p"])
            .arg(self.port.to_string())
            .arg("-c")
            .arg(format!("CREATE DATABASE {name}"))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| {
                PostgresHarnessError::io(format!("cannot run {}: {e}", psql.display()), e)
            })?;
        if !out.status.success() {
            return Err(PostgresHarnessError::new(format!(
                "CREATE DATABASE failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(self.database_url(&name))
    }

    fn start_with(extra: &[&str]) -> Result<Self, PostgresHarnessError> {
        let bin = find_bindir()?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let run_as = if unsafe { geteuid() } == 0 {
            Some(unprivileged_user()?)
        } else {
            None
        };
        let dir = std::env::temp_dir().join(format!(
            "agentry-pg-{}-{}",
            std::process::id(),
            crate::random::u64()
        ));
        std::fs::create_dir_all(&dir).map_err(|e| {
            PostgresHarnessError::io(format!("cannot create {}: {e}", dir.display()), e)
        })?;
        if let Some((uid, gid)) = run_as {
            chown(&dir, Some(uid), Some(gid)).map_err(|e| {
                PostgresHarnessError::io(format!("cannot chown {}: {e}", dir.display()), e)
            })?;
            // The temporary directory must be reachable by the unprivileged user.
            let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        }
        let mut server = PostgresServer {
            bin,
            dir,
            port: 0,
            run_as,
        };
        let data = server.dir.join("data");
        let out = server
            .command("initdb")
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-locale",
                "-N",
            ])
            .output()
            .map_err(|e| PostgresHarnessError::io(format!("cannot run initdb: {e}"), e))?;
        if !out.status.success() {
            return Err(PostgresHarnessError::new(format!(
                "initdb failed: {}{}",
                String::from_utf8_lossy(&out.stdout).trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        // A port taken between probing and binding makes pg_ctl fail: try a few.
        let mut last_error = String::new();
        for _ in 0..5 {
            server.port = free_port()?;
            let options = format!(
                "-p {} -c listen_addresses=127.0.0.1 -k {} {}",
                server.port,
                server.dir.display(),
                extra.join(" ")
            );
            let out = server
                .command("pg_ctl")
                .arg("-D")
                .arg(&data)
                .arg("-l")
                .arg(server.dir.join("log"))
                .args(["-w", "-t", "60", "-o"])
                .arg(options)
                .arg("start")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map_err(|e| PostgresHarnessError::io(format!("cannot run pg_ctl: {e}"), e))?;
            if out.success() && server.wait_ready(Duration::from_secs(30)) {
                server.spawn_watchdog();
                return Ok(server);
            }
            last_error = std::fs::read_to_string(server.dir.join("log")).unwrap_or_default();
        }
        Err(PostgresHarnessError::new(format!(
            "pg_ctl start failed; server log:\n{last_error}"
        )))
    }

    fn wait_ready(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// A command for one of the Postgres binaries, run as the unprivileged user when needed.
    fn command(&self, name: &str) -> Command {
        let mut cmd = Command::new(self.bin.join(name));
        if let Some((uid, gid)) = self.run_as {
            cmd.uid(uid).gid(gid).env("HOME", &self.dir);
        }
        cmd
    }

    /// Stops the server once this process is gone, even when it never drops `self`.
    fn spawn_watchdog(&self) {
        let pg_ctl = self.bin.join("pg_ctl");
        let data = self.dir.join("data");
        let stop = match self.run_as {
            Some((uid, gid)) => format!(
                "setpriv --reuid={uid} --regid={gid} --clear-groups {} -D {} stop -m immediate",
                pg_ctl.display(),
                data.display()
            ),
            None => format!(
                "{} -D {} stop -m immediate",
                pg_ctl.display(),
                data.display()
            ),
        };
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {stop} >/dev/null 2>&1; rm -rf {dir}",
            pid = std::process::id(),
            dir = self.dir.display()
        );
        let spawned = Command::new("sh")
            .arg("-c")
            .arg(script)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn();
        if let Err(e) = spawned {
            tracing::warn!("cannot start the Postgres watchdog: {e}");
        }
    }
}

impl Drop for PostgresServer {
    fn drop(&mut self) {
        let _ = self
            .command("pg_ctl")
            .arg("-D")
            .arg(self.dir.join("data"))
            .args(["stop", "-m", "fast", "-w"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl fmt::Debug for PostgresServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresServer")
            .field("port", &self.port)
            .field("dir", &self.dir)
            .finish()
    }
}

unsafe extern "C" {
    fn geteuid() -> u32;
}

fn has_server_binaries(dir: &Path) -> bool {
    dir.join("initdb").is_file() && dir.join("pg_ctl").is_file() && dir.join("psql").is_file()
}

/// Where `initdb` and `pg_ctl` live.
fn find_bindir() -> Result<PathBuf, PostgresHarnessError> {
    if let Ok(dir) = std::env::var("PG_BINDIR") {
        let dir = PathBuf::from(dir);
        if has_server_binaries(&dir) {
            return Ok(dir);
        }
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output()
        && out.status.success()
    {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if has_server_binaries(&dir) {
            return Ok(dir);
        }
    }
    // Debian keeps the server binaries out of PATH, one directory per major version.
    if let Ok(entries) = std::fs::read_dir("/usr/lib/postgresql") {
        let mut versions: Vec<(u32, PathBuf)> = entries
            .flatten()
            .filter_map(|e| {
                let version = e.file_name().to_str()?.parse::<u32>().ok()?;
                Some((version, e.path().join("bin")))
            })
            .filter(|(_, bin)| has_server_binaries(bin))
            .collect();
        versions.sort();
        if let Some((_, bin)) = versions.pop() {
            return Ok(bin);
        }
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            if has_server_binaries(&dir) {
                // `initdb` on PATH may be a symlink into the real bin directory.
                let real = std::fs::canonicalize(dir.join("initdb"))
                    .ok()
                    .and_then(|p| p.parent().map(Path::to_path_buf))
                    .filter(|d| has_server_binaries(d));
                return Ok(real.unwrap_or(dir));
            }
        }
    }
    Err(PostgresHarnessError::new(
        "no Postgres server binaries (initdb, pg_ctl, psql) found via pg_config, \
         /usr/lib/postgresql/*/bin or PATH",
    ))
}

/// The uid and gid of `nobody`, to run the server as when the tests run as root.
fn unprivileged_user() -> Result<(u32, u32), PostgresHarnessError> {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    passwd
        .lines()
        .find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            (fields.len() > 3 && fields[0] == "nobody")
                .then(|| Some((fields[2].parse().ok()?, fields[3].parse().ok()?)))
                .flatten()
        })
        .ok_or_else(|| {
            PostgresHarnessError::new(
                "running as root and no `nobody` user to run Postgres as (Postgres refuses root)",
            )
        })
}

fn free_port() -> Result<u16, PostgresHarnessError> {
    let listener = TcpListener::bind(("127.0.0.1", 0))
        .map_err(|e| PostgresHarnessError::io(format!("cannot find a free port: {e}"), e))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| PostgresHarnessError::io(format!("cannot find a free port: {e}"), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_harness_error_keeps_the_io_error() {
        use std::error::Error as _;
        let missing = Command::new("/nonexistent/initdb").output().unwrap_err();
        let err = PostgresHarnessError::io(format!("cannot run initdb: {missing}"), missing);
        let cause = err
            .source()
            .and_then(|e| e.downcast_ref::<std::io::Error>())
            .expect("the io::Error as the source");
        assert_eq!(cause.kind(), std::io::ErrorKind::NotFound);
        assert!(
            PostgresHarnessError::new("initdb failed")
                .source()
                .is_none()
        );
    }

    #[test]
    fn every_harness_error_says_how_to_install_postgres() {
        let message = PostgresHarnessError::new("initdb failed").to_string();
        assert!(message.contains("initdb failed"), "{message}");
        assert!(message.contains("apt-get install postgresql"), "{message}");
    }

    #[test]
    fn finds_the_server_binaries_on_this_machine() {
        let bin = find_bindir().unwrap_or_else(|e| panic!("{e}"));
        assert!(has_server_binaries(&bin), "{}", bin.display());
    }
}
