//! The parent's child processes: the mock server, and the clients with their flags.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use crate::args::Mode;
use crate::measure::{Measurement, Phases, Plan, RESULT_PREFIX};
use crate::server::URL_PREFIX;

/// Why the benchmark could not produce its table.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A child process could not be started or read.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A child process failed or printed no result.
    #[error("{0}")]
    Child(String),
}

pub fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BenchError {
    let what = what.into();
    move |source| BenchError::Io { what, source }
}

/// The server child; closing its stdin ends it, and dropping this waits for it.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Server {
    /// Starts `exe --serve` and reads its URL.
    pub fn start(exe: &Path) -> Result<(Server, String), BenchError> {
        let mut child = Command::new(exe)
            .arg("--serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(io("could not start the server process"))?;
        let stdin = child.stdin.take();
        let mut server = Server { child, stdin };
        let stdout = server
            .child
            .stdout
            .take()
            .ok_or_else(|| BenchError::Child("the server's stdout is not piped".into()))?;
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .map_err(io("could not read the server's URL"))?;
        let url = line
            .trim()
            .strip_prefix(URL_PREFIX)
            .ok_or_else(|| {
                BenchError::Child(format!("the server printed {line:?} instead of its URL"))
            })?
            .to_owned();
        Ok((server, url))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        eprintln!("the server process did not stop; killing it");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a client child is asked to do (besides its mode and the URL).
#[derive(Clone, Copy, Debug, Default)]
pub struct Flags {
    /// `--stream`.
    pub stream: bool,
    /// `--history K`.
    pub history: Option<usize>,
    /// `--cold`.
    pub cold: bool,
}

/// The command line of a client child (without the program).
pub fn client_args(url: &str, mode: Mode, plan: &Plan, flags: Flags) -> Vec<String> {
    let mut args: Vec<String> = ["--client", mode.name(), "--url", url]
        .map(str::to_owned)
        .into();
    if flags.cold {
        args.push("--cold".into());
        return args;
    }
    for (flag, n) in [
        ("--runs", plan.sequential),
        ("--concurrent", plan.concurrent),
        ("--warmup", plan.warmup),
        ("--bursts", plan.bursts),
    ] {
        args.extend([flag.to_owned(), n.to_string()]);
    }
    match plan.phases {
        Phases::Both => {}
        Phases::Sequential => args.extend(["--phase".into(), "seq".into()]),
        Phases::Concurrent => args.extend(["--phase".into(), "conc".into()]),
    }
    if flags.stream {
        args.push("--stream".into());
    }
    if let Some(k) = flags.history {
        args.extend(["--history".into(), k.to_string()]);
    }
    args
}

/// Runs `program args` to its end; its result line.
pub fn run_client(program: &Path, args: &[String], what: &str) -> Result<Measurement, BenchError> {
    let output = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(io(format!("could not start the {what} client")))?;
    if !output.status.success() {
        return Err(BenchError::Child(format!(
            "the {what} client failed ({})",
            output.status
        )));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(RESULT_PREFIX))
        .ok_or_else(|| BenchError::Child(format!("the {what} client printed no result")))?;
    serde_json::from_str(line).map_err(|e| {
        BenchError::Child(format!(
            "the {what} client's result does not parse: {e}: {line}"
        ))
    })
}
