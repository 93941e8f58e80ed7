//! What the test set-ups that build an environment under `target/` share (the MCP venv, the
//! UI protocols' Node packages): running a set-up command, a lock between processes, and
//! finding cargo's target folder. Included with `#[path]` by `python_env.rs` and by
//! `agentry/tests/serve_support/node_env.rs`.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs a set-up command; a failure says what ran, what it printed last and what to do.
pub fn run(command: &mut Command, what: &str, advice: &str) -> Result<(), String> {
    let output = command
        .output()
        .map_err(|e| format!("could not start `{what}`: {e}; {advice}"))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(15).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    Err(format!(
        "`{what}` failed ({}); {advice}\n{}",
        output.status,
        tail.join("\n")
    ))
}

/// An exclusive lock on `path`, held until the returned file is dropped.
pub fn lock(path: &Path) -> Result<File, String> {
    use std::os::fd::AsRawFd;
    let file = File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    // SAFETY: flock on a descriptor this function owns; it blocks until the lock is ours.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
        let err = std::io::Error::last_os_error();
        return Err(format!("cannot lock {}: {err}", path.display()));
    }
    Ok(file)
}

/// Cargo's target folder: the nearest ancestor of this executable that holds the
/// `CACHEDIR.TAG` cargo writes there (tests and examples both live two levels below it),
/// else `fallback` (the workspace's `target/`).
pub fn target_dir(fallback: PathBuf) -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.ancestors()
                .find(|dir| dir.join("CACHEDIR.TAG").is_file())
                .map(Path::to_path_buf)
        })
        .unwrap_or(fallback)
}
