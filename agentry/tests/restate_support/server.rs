//! A real `restate-server` for the Restate tests: the binary of the npm package pinned in
//! `tests/restate_server/package-lock.json`, installed on first use under
//! `target/restate-server` with `npm ci` (no install scripts run), started on free loopback
//! ports with its data in a temporary folder.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

#[path = "../../../examples/support/setup.rs"]
mod setup;
use setup::{lock, run, target_dir};

const PACKAGE: &str = include_str!("../restate_server/package.json");
const LOCK: &str = include_str!("../restate_server/package-lock.json");
/// Written last, holding [`LOCK`]: its presence means the install is complete.
const MARKER: &str = ".agentry-lock";
const ADVICE: &str = "the Restate tests need Node.js and npm (`apt-get install nodejs npm`) to \
                      install the pinned `@restatedev/restate-server` from the npm registry \
                      (`npm ci` in target/restate-server)";

/// The `restate-server` binary, installed once.
pub fn binary() -> Result<PathBuf, String> {
    static BIN: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BIN.get_or_init(find_or_install).clone()
}

fn find_or_install() -> Result<PathBuf, String> {
    let target = target_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let dir = target.join("restate-server");
    std::fs::create_dir_all(&target)
        .map_err(|e| format!("cannot create {}: {e}", target.display()))?;
    let _lock = lock(&target.join("restate-server.lock"))?;
    let complete = std::fs::read_to_string(dir.join(MARKER)).is_ok_and(|made| made == LOCK);
    if !complete {
        eprintln!(
            "installing restate-server at {} (once; `npm ci` of the pinned package)",
            dir.display()
        );
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .map_err(|e| format!("cannot remove {}: {e}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        for (name, text) in [("package.json", PACKAGE), ("package-lock.json", LOCK)] {
            std::fs::write(dir.join(name), text)
                .map_err(|e| format!("cannot write {name}: {e}"))?;
        }
        run(
            Command::new("npm")
                .args([
                    "ci",
                    "--ignore-scripts",
                    "--no-audit",
                    "--no-fund",
                    "--loglevel=error",
                ])
                .current_dir(&dir),
            "npm ci",
            ADVICE,
        )?;
        std::fs::write(dir.join(MARKER), LOCK)
            .map_err(|e| format!("cannot write the marker: {e}"))?;
    }
    let bin = dir.join("node_modules/@restatedev/restate-server-linux-x64/bin/restate-server");
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(format!(
            "{} is missing after `npm ci`; {ADVICE}",
            bin.display()
        ))
    }
}

/// A free loopback port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// A running `restate-server`.
pub struct Server {
    child: Option<Child>,
    config: PathBuf,
    log: PathBuf,
    /// The admin API's port.
    pub admin: u16,
    /// The ingress's port.
    pub ingress: u16,
}

impl Server {
    /// Starts a server keeping its data under `dir`, and waits until it serves.
    pub fn start(dir: &Path) -> Server {
        let bin = binary().unwrap_or_else(|e| panic!("restate-server: {e}"));
        let (admin, ingress, fabric) = (free_port(), free_port(), free_port());
        let config = dir.join("restate.toml");
        // Short retry intervals: a killed service is invoked again quickly.
        let text = format!(
            r#"base-dir = "{base}"
disable-telemetry = true
default-num-partitions = 2
rocksdb-total-memory-size = "256 MiB"
bind-address = "127.0.0.1:{fabric}"
advertised-address = "http://127.0.0.1:{fabric}/"
[default-retry-policy]
initial-interval = "50ms"
exponentiation-factor = 1.5
max-interval = "400ms"
max-attempts = 10000
[admin]
bind-address = "127.0.0.1:{admin}"
[ingress]
bind-address = "127.0.0.1:{ingress}"
"#,
            base = dir.join("data").display(),
        );
        std::fs::write(&config, text).expect("write restate.toml");
        let mut server = Server {
            child: None,
            config,
            log: dir.join("restate.log"),
            admin,
            ingress,
        };
        server.launch(bin);
        server
    }

    fn launch(&mut self, bin: PathBuf) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("the server's log");
        let child = Command::new(bin)
            .arg("--config-file")
            .arg(&self.config)
            .args(["--listen-mode", "tcp", "--no-logo"])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start restate-server");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let ready = std::net::TcpStream::connect(("127.0.0.1", self.ingress)).is_ok()
                && std::net::TcpStream::connect(("127.0.0.1", self.admin)).is_ok();
            if ready {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "restate-server did not start: {}",
                self.log_tail()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGKILLs the server.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on its data and ports.
    pub fn restart(&mut self) {
        self.kill();
        self.launch(binary().expect("installed"));
    }

    /// The end of the server's log.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().rev().take(30).collect();
        lines.into_iter().rev().collect::<Vec<_>>().join("\n")
    }

    /// The ingress's base URL.
    pub fn ingress_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.ingress)
    }

    /// Registers the service deployment at `uri` (retrying while the server warms up).
    pub async fn register(&self, uri: &str) {
        let client = reqwest::Client::new();
        let url = format!("http://127.0.0.1:{}/deployments", self.admin);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let sent = client
                .post(&url)
                .json(&serde_json::json!({ "uri": uri, "force": true }))
                .send()
                .await;
            match sent {
                Ok(response) if response.status().is_success() => return,
                other => {
                    let why = match other {
                        Ok(r) => format!("{}: {}", r.status(), r.text().await.unwrap_or_default()),
                        Err(e) => e.to_string(),
                    };
                    assert!(Instant::now() < deadline, "registering {uri} failed: {why}");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}
