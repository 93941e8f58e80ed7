//! Headless Chromium for the browser tests, driven over WebDriver (`chromedriver`) with
//! `fantoccini`.
//!
//! Uses the distribution's packages: `/usr/bin/chromium` and `/usr/bin/chromedriver`
//! (Debian's `chromium` and `chromium-driver`). When they are missing and the test runs as
//! root, it installs them with `apt-get`; otherwise it fails, naming the command to run.
//! `.ci/run` installs them before the tests.
//!
//! The machine's network is closed, so Chromium starts with everything that would reach
//! out (component updates, sync, background networking, QUIC) turned off, and with a fresh
//! profile under `target/`.

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder};
use serde_json::{Map, json};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const INSTALL: &str = "apt-get install -y chromium chromium-driver";

/// The flags that keep a headless Chromium from stalling on a machine without a network.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1000,900",
];

/// Finds Chromium and its WebDriver, installing them first when they are missing (as root).
fn installed() -> Result<(), String> {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let present = || Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists();
            if present() {
                return Ok(());
            }
            // SAFETY: geteuid has no preconditions and cannot fail.
            if unsafe { libc::geteuid() } != 0 {
                return Err(format!(
                    "the browser test needs {CHROMIUM} and {CHROMEDRIVER}; install them with \
                     `sudo {INSTALL}` (Debian's packages)"
                ));
            }
            eprintln!("installing Chromium for the browser test: {INSTALL}");
            let apt = |args: &[&str]| {
                Command::new("apt-get")
                    .args(args)
                    .env("DEBIAN_FRONTEND", "noninteractive")
                    .stdout(Stdio::null())
                    .status()
                    .map_err(|e| format!("cannot run apt-get ({e}); run `{INSTALL}` yourself"))
            };
            apt(&["update", "-qq"])?;
            let status = apt(&["install", "-y", "-qq", "chromium", "chromium-driver"])?;
            if !status.success() || !present() {
                return Err(format!(
                    "`{INSTALL}` failed ({status}); the browser test needs {CHROMIUM} and \
                     {CHROMEDRIVER}"
                ));
            }
            Ok(())
        })
        .clone()
}

/// A headless Chromium behind its own `chromedriver`, and a WebDriver session on it.
///
/// Call [`Browser::close`] at the end; dropping it (a failed test) ends the driver's whole
/// process group, the browser with it.
pub struct Browser {
    client: Option<Client>,
    driver: Child,
    profile: PathBuf,
}

impl Browser {
    /// Starts `chromedriver` on a free loopback port and opens a session with a fresh
    /// profile under `dir` (its log goes there too).
    pub async fn start(dir: &Path) -> Browser {
        let installed = tokio::task::spawn_blocking(installed).await;
        if let Err(e) = installed.expect("the installation check") {
            panic!("{e}");
        }
        std::fs::create_dir_all(dir).expect("create the browser test's folder");
        // Chromium does not start with a profile path holding `..`.
        let dir = &std::fs::canonicalize(dir).expect("the browser test's folder");
        let port = free_port();
        let log = std::fs::File::create(dir.join("chromedriver.log")).expect("create the log");
        let mut command = Command::new(CHROMEDRIVER);
        command
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("clone the log handle"))
            .stderr(log);
        // Its own process group: chromedriver's browser inherits it, so one signal ends both.
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let driver = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {CHROMEDRIVER}: {e}"));
        let profile = dir.join(format!("profile-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        let mut browser = Browser {
            client: None,
            driver,
            profile,
        };
        wait_for_port(port, Duration::from_secs(20)).await;

        let mut args: Vec<String> = FLAGS.iter().map(|f| f.to_string()).collect();
        args.push(format!("--user-data-dir={}", browser.profile.display()));
        let mut caps = Map::new();
        caps.insert("browserName".into(), json!("chrome"));
        caps.insert(
            "goog:chromeOptions".into(),
            json!({ "binary": CHROMIUM, "args": args }),
        );
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "no WebDriver session on Chromium: {e} (see {})",
                    dir.join("chromedriver.log").display()
                )
            });
        browser.client = Some(client);
        browser
    }

    /// The WebDriver session.
    pub fn client(&self) -> &Client {
        self.client.as_ref().expect("the session is open")
    }

    /// Ends the session (the browser quits) and the driver.
    pub async fn close(mut self) {
        if let Some(client) = self.client.take() {
            let _ = client.close().await;
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let group = self.driver.id() as i32;
        // SAFETY: a plain signal to the process group this struct started.
        unsafe {
            libc::kill(-group, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.driver.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // SAFETY: as above; whatever of the group is left is ended for good.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
        let _ = self.driver.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind a loopback port");
    listener.local_addr().expect("a bound address").port()
}

async fn wait_for_port(port: u16, limit: Duration) {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let deadline = Instant::now() + limit;
    while tokio::net::TcpStream::connect(addr).await.is_err() {
        assert!(
            Instant::now() < deadline,
            "chromedriver did not listen on port {port} within {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
