//! The Python environment with the official MCP SDK and the reference `mcp-server-time`, for
//! the MCP example (`examples/mcp_tools.rs`) and the interop tests (`tests/mcp.rs`).
//!
//! [`ensure`] finds or makes it: `AGENTRY_MCP_VENV` when set (used as it is), else
//! `target/mcp-venv`, created on first use with `python3 -m venv` and the pinned packages of
//! `tests/mcp/requirements.txt`. A file lock beside it keeps parallel test binaries from
//! creating it twice; a marker file holding the requirements it was made from tells a
//! finished environment from one a killed process left half-made (that one is made again).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

#[path = "setup.rs"]
mod setup;
use setup::{lock, run, target_dir};

/// The pinned requirements; the environment is made again when they change.
const REQUIREMENTS: &str = include_str!("../../tests/mcp/requirements.txt");
const REQUIREMENTS_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/requirements.txt");
/// Written last, holding [`REQUIREMENTS`]: its presence means the environment is complete.
const MARKER: &str = ".agentry-requirements";

/// A ready Python environment.
#[derive(Debug, Clone)]
pub struct PythonEnv {
    dir: PathBuf,
}

impl PythonEnv {
    /// The environment's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Its Python interpreter.
    pub fn python(&self) -> PathBuf {
        self.bin("python")
    }

    /// A program its packages installed (`mcp-server-time`).
    pub fn bin(&self, name: &str) -> PathBuf {
        self.dir.join("bin").join(name)
    }
}

/// Finds or makes the environment, once per process.
pub fn ensure() -> Result<PythonEnv, String> {
    static ENV: OnceLock<Result<PythonEnv, String>> = OnceLock::new();
    ENV.get_or_init(find_or_make).clone()
}

fn find_or_make() -> Result<PythonEnv, String> {
    for name in ["AGENTRY_MCP_VENV", "AGENT_SDK_MCP_VENV"] {
        if let Some(dir) = std::env::var_os(name).filter(|v| !v.is_empty()) {
            let env = PythonEnv { dir: dir.into() };
            if !env.python().exists() {
                return Err(format!(
                    "{name} points at {}, which has no bin/python; unset it to let the \
                     environment be created under target/, or create it with \
                     `python3 -m venv DIR && DIR/bin/pip install -r tests/mcp/requirements.txt`",
                    env.dir.display()
                ));
            }
            return Ok(env);
        }
    }
    let target = target_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let env = PythonEnv {
        dir: target.join("mcp-venv"),
    };
    if is_complete(&env) {
        return Ok(env);
    }
    std::fs::create_dir_all(&target)
        .map_err(|e| format!("cannot create {}: {e}", target.display()))?;
    let _lock = lock(&target.join("mcp-venv.lock"))?;
    // Another process may have made it while this one waited for the lock.
    if is_complete(&env) {
        return Ok(env);
    }
    make(&env)?;
    Ok(env)
}

fn is_complete(env: &PythonEnv) -> bool {
    env.python().exists()
        && std::fs::read_to_string(env.dir.join(MARKER)).is_ok_and(|made| made == REQUIREMENTS)
}

fn make(env: &PythonEnv) -> Result<(), String> {
    eprintln!(
        "creating the Python environment for the MCP reference servers at {} (once; pip \
         installs the pinned packages of tests/mcp/requirements.txt)",
        env.dir.display()
    );
    if env.dir.exists() {
        std::fs::remove_dir_all(&env.dir)
            .map_err(|e| format!("cannot remove the unfinished {}: {e}", env.dir.display()))?;
    }
    run(
        Command::new("python3").arg("-m").arg("venv").arg(&env.dir),
        "python3 -m venv",
        "the MCP interop tests and example need Python 3 with venv: install it with \
         `apt-get install python3 python3-venv`",
    )?;
    run(
        Command::new(env.bin("pip"))
            .args(["install", "--disable-pip-version-check", "--quiet", "-r"])
            .arg(REQUIREMENTS_PATH),
        "pip install -r tests/mcp/requirements.txt",
        "pip could not install the pinned MCP packages: the Python package registry must be \
         reachable (or point AGENTRY_MCP_VENV at an environment that has them)",
    )?;
    std::fs::write(env.dir.join(MARKER), REQUIREMENTS)
        .map_err(|e| format!("cannot write {}: {e}", env.dir.join(MARKER).display()))
}
