//! `--client <mode>`: warm up, then N sequential runs and C concurrent runs, measuring wall
//! time and this process's CPU time (getrusage, user + system) around each phase, and the
//! peak RSS (VmHWM) at the end. The result is printed as one JSON line.
//!
//! For the instruction counts, `--phase seq|conc` measures one phase only (after the same
//! warm-up) and `--bursts B` runs the concurrent phase as B bursts of C, one after the other.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::job;

/// The line prefix a client's result is printed after.
pub const RESULT_PREFIX: &str = "RESULT ";

/// One phase: how many runs, how long they took on the wall clock and on the CPU.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Phase {
    /// Runs done.
    pub runs: u64,
    /// Wall-clock seconds.
    pub wall_s: f64,
    /// Process CPU seconds (user + system).
    pub cpu_s: f64,
}

impl Phase {
    /// Runs per wall-clock second.
    pub fn runs_per_s(&self) -> f64 {
        self.runs as f64 / self.wall_s
    }

    /// CPU microseconds per run.
    pub fn cpu_us_per_run(&self) -> f64 {
        self.cpu_s * 1e6 / self.runs as f64
    }
}

/// What one client process measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measurement {
    /// `sdk` or `baseline`.
    pub mode: String,
    /// The sequential runs.
    pub sequential: Phase,
    /// The concurrent runs.
    pub concurrent: Phase,
    /// Peak resident set size, KiB (`None` where /proc/self/status has no `VmHWM`).
    pub peak_rss_kib: Option<u64>,
    /// At the end: resident anonymous memory (heap, stacks) and resident file pages (the
    /// executable's and libraries' code and data), KiB; what the peak is made of.
    #[serde(default)]
    pub rss_split_kib: Option<RssSplit>,
    /// Sockets open at the end: the HTTP connections the client's pool opened and keeps (an
    /// idle one is kept 90 s), which is what a concurrent client's peak mostly holds.
    #[serde(default)]
    pub sockets: Option<u64>,
}

/// The resident set split by kind (`RssAnon`, `RssFile` in /proc/self/status), KiB.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct RssSplit {
    /// Heap, stacks, anonymous maps.
    pub anon: u64,
    /// Pages of mapped files: the executable's code and read-only data, shared libraries.
    pub file: u64,
}

/// Which phases a client process measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phases {
    /// The sequential runs, then the concurrent ones.
    Both,
    /// Only the sequential runs (`--phase seq`).
    Sequential,
    /// Only the concurrent bursts (`--phase conc`).
    Concurrent,
}

/// How much one client process runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Sequential runs.
    pub sequential: u64,
    /// Runs per concurrent burst (also the size of the warm-up burst).
    pub concurrent: u64,
    /// Sequential warm-up runs (followed by one concurrent warm-up burst).
    pub warmup: u64,
    /// Which phases are measured.
    pub phases: Phases,
    /// Concurrent bursts of `concurrent` runs, one after the other.
    pub bursts: u64,
}

/// A run failed or gave the wrong answer, or the CPU time could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RunFailed {
    /// `getrusage` failed.
    #[error("getrusage failed: {0}")]
    Rusage(std::io::Error),
    /// The client returned an error.
    #[error("{phase} run failed: {message}")]
    Error {
        /// Which phase.
        phase: &'static str,
        /// The client's error.
        message: String,
    },
    /// The run finished with another answer than the mock model gave.
    #[error("{phase} run answered {answer:?}, expected {:?}", job::ANSWER)]
    WrongAnswer {
        /// Which phase.
        phase: &'static str,
        /// What it answered.
        answer: String,
    },
    /// A spawned run panicked.
    #[error("{phase} run panicked: {message}")]
    Panicked {
        /// Which phase.
        phase: &'static str,
        /// The join error.
        message: String,
    },
}

/// An answer other than [`job::ANSWER`], or an error, fails the run.
pub fn check<E: std::fmt::Display>(
    phase: &'static str,
    outcome: Result<String, E>,
) -> Result<(), RunFailed> {
    match outcome {
        Ok(answer) if answer == job::ANSWER => Ok(()),
        Ok(answer) => Err(RunFailed::WrongAnswer { phase, answer }),
        Err(e) => Err(RunFailed::Error {
            phase,
            message: e.to_string(),
        }),
    }
}

/// Runs the plan with `run` (one agent run per call) on a multi-thread runtime.
pub async fn measure<C, F, Fut, E>(
    mode: &str,
    client: Arc<C>,
    run: F,
    plan: Plan,
) -> Result<Measurement, RunFailed>
where
    C: Send + Sync + 'static,
    F: Fn(Arc<C>) -> Fut + Copy + Send + 'static,
    Fut: Future<Output = Result<String, E>> + Send + 'static,
    E: std::fmt::Display + Send + 'static,
{
    for _ in 0..plan.warmup {
        check("warm-up", run(client.clone()).await)?;
    }
    concurrent(&client, run, plan.concurrent, "warm-up").await?;

    let sequential_runs = match plan.phases {
        Phases::Concurrent => 0,
        _ => plan.sequential,
    };
    let (wall, cpu) = (Instant::now(), cpu_time()?);
    for _ in 0..sequential_runs {
        check("sequential", run(client.clone()).await)?;
    }
    let sequential = Phase {
        runs: sequential_runs,
        wall_s: wall.elapsed().as_secs_f64(),
        cpu_s: (cpu_time()? - cpu).as_secs_f64(),
    };

    let bursts = match plan.phases {
        Phases::Sequential => 0,
        _ => plan.bursts,
    };
    let (wall, cpu) = (Instant::now(), cpu_time()?);
    for _ in 0..bursts {
        concurrent(&client, run, plan.concurrent, "concurrent").await?;
    }
    let concurrent = Phase {
        runs: bursts * plan.concurrent,
        wall_s: wall.elapsed().as_secs_f64(),
        cpu_s: (cpu_time()? - cpu).as_secs_f64(),
    };

    Ok(Measurement {
        mode: mode.to_owned(),
        sequential,
        concurrent,
        peak_rss_kib: peak_rss_kib(),
        rss_split_kib: rss_split_kib(),
        sockets: open_sockets(),
    })
}

/// `n` runs spawned at once, then joined.
async fn concurrent<C, F, Fut, E>(
    client: &Arc<C>,
    run: F,
    n: u64,
    phase: &'static str,
) -> Result<(), RunFailed>
where
    C: Send + Sync + 'static,
    F: Fn(Arc<C>) -> Fut + Copy + Send + 'static,
    Fut: Future<Output = Result<String, E>> + Send + 'static,
    E: std::fmt::Display + Send + 'static,
{
    let tasks: Vec<_> = (0..n).map(|_| tokio::spawn(run(client.clone()))).collect();
    for task in tasks {
        match task.await {
            Ok(outcome) => check(phase, outcome)?,
            Err(e) => {
                return Err(RunFailed::Panicked {
                    phase,
                    message: e.to_string(),
                });
            }
        }
    }
    Ok(())
}

/// This process's CPU time so far, user + system (all threads).
pub fn cpu_time() -> Result<Duration, RunFailed> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: `getrusage` fills the `rusage` it is given and touches nothing else.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } != 0 {
        return Err(RunFailed::Rusage(std::io::Error::last_os_error()));
    }
    // SAFETY: it returned 0, so it filled the struct.
    let usage = unsafe { usage.assume_init() };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    Ok(tv(usage.ru_utime) + tv(usage.ru_stime))
}

/// The peak resident set size (`VmHWM` in /proc/self/status), KiB.
pub fn peak_rss_kib() -> Option<u64> {
    status_kib("VmHWM:")
}

/// The resident set now, split into anonymous and file pages.
pub fn rss_split_kib() -> Option<RssSplit> {
    Some(RssSplit {
        anon: status_kib("RssAnon:")?,
        file: status_kib("RssFile:")?,
    })
}

/// How many of this process's file descriptors are sockets (/proc/self/fd).
pub fn open_sockets() -> Option<u64> {
    let fds = std::fs::read_dir("/proc/self/fd").ok()?;
    let sockets = fds
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter(|target| target.to_string_lossy().starts_with("socket:"))
        .count();
    Some(sockets as u64)
}

/// A `kB` line of /proc/self/status.
fn status_kib(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(key))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}
