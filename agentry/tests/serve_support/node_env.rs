//! The Node environment with the official parsers of the UI protocols (the `ai` package and
//! `@ag-ui/core`, pinned in `tests/ui_protocols/package-lock.json`), for
//! `serve_conformance.rs`.
//!
//! [`ensure`] makes it on first use under `target/ui-protocols` with `npm ci` (the exact
//! versions of the lock file, from the npm registry). A file lock keeps parallel test
//! binaries from making it twice; a marker holding the lock file it was made from tells a
//! finished environment from one a killed process left half-made (that one is made again).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

#[path = "../../../examples/support/setup.rs"]
mod setup;
use setup::{lock, run, target_dir};

const PACKAGE: &str = include_str!("../ui_protocols/package.json");
const LOCK: &str = include_str!("../ui_protocols/package-lock.json");
const CHECK: &str = include_str!("../ui_protocols/check.mjs");
/// Written last, holding [`LOCK`]: its presence means the environment is complete.
const MARKER: &str = ".agentry-lock";

/// Finds or makes the environment, once per process: its folder (holding `check.mjs`).
pub fn ensure() -> Result<PathBuf, String> {
    static ENV: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    ENV.get_or_init(find_or_make).clone()
}

fn find_or_make() -> Result<PathBuf, String> {
    let target = target_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let dir = target.join("ui-protocols");
    std::fs::create_dir_all(&target)
        .map_err(|e| format!("cannot create {}: {e}", target.display()))?;
    let _lock = lock(&target.join("ui-protocols.lock"))?;
    if !is_complete(&dir) {
        make(&dir)?;
    }
    // The script is not part of what npm installs: always the committed one.
    std::fs::write(dir.join("check.mjs"), CHECK)
        .map_err(|e| format!("cannot write check.mjs: {e}"))?;
    Ok(dir)
}

fn is_complete(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join(MARKER)).is_ok_and(|made| made == LOCK)
}

fn make(dir: &Path) -> Result<(), String> {
    eprintln!(
        "creating the Node environment of the UI protocol parsers at {} (once; `npm ci` installs \
         the pinned `ai` and `@ag-ui/core`)",
        dir.display()
    );
    if dir.exists() {
        std::fs::remove_dir_all(dir)
            .map_err(|e| format!("cannot remove the unfinished {}: {e}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (name, text) in [("package.json", PACKAGE), ("package-lock.json", LOCK)] {
        std::fs::write(dir.join(name), text).map_err(|e| format!("cannot write {name}: {e}"))?;
    }
    run(
        Command::new("node").arg("--version"),
        "node --version",
        "the UI protocol conformance test needs Node.js and npm: install them with \
         `apt-get install nodejs npm`",
    )?;
    run(
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(dir),
        "npm ci",
        "npm could not install the pinned `ai` and `@ag-ui/core`: the npm registry must be \
         reachable (install Node.js and npm with `apt-get install nodejs npm`)",
    )?;
    std::fs::write(dir.join(MARKER), LOCK)
        .map_err(|e| format!("cannot write {}: {e}", dir.join(MARKER).display()))
}

/// Runs `check.mjs` on `input` (JSON: `{"protocol", "streams": [{"sse", "continues"}]}`):
/// its report, or what it found wrong.
pub fn check(input: &serde_json::Value) -> Result<serde_json::Value, String> {
    let dir = ensure().unwrap_or_else(|e| {
        panic!("the UI protocol conformance test needs its Node environment: {e}")
    });
    let file = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    std::fs::write(file.path(), input.to_string()).map_err(|e| e.to_string())?;
    let output = Command::new("node")
        .arg(dir.join("check.mjs"))
        .arg(file.path())
        .current_dir(&dir)
        .output()
        .map_err(|e| {
            format!("could not start node: {e}; install it with `apt-get install nodejs npm`")
        })?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!("{stdout}{stderr}"));
    }
    serde_json::from_str(&stdout)
        .map_err(|e| format!("check.mjs printed no report ({e}): {stdout}{stderr}"))
}
