//! The parent: starts the server process, runs each client in its own process (alternating
//! the order each round), and prints the table and the SDK/baseline ratios.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use crate::args::{Mode, Settings};
use crate::measure::{Measurement, RESULT_PREFIX};
use crate::server::URL_PREFIX;

/// The SDK may use at most this many times the baseline's CPU per run.
pub const TARGET: f64 = 1.15;

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

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BenchError {
    let what = what.into();
    move |source| BenchError::Io { what, source }
}

/// The server child; closing its stdin ends it, and dropping this waits for it.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Server {
    fn start(exe: &std::path::Path) -> Result<(Server, String), BenchError> {
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

fn run_client(
    exe: &std::path::Path,
    url: &str,
    mode: Mode,
    settings: &Settings,
) -> Result<Measurement, BenchError> {
    let plan = settings.plan();
    let output = Command::new(exe)
        .args(["--client", mode.name(), "--url", url])
        .args(["--runs", &plan.sequential.to_string()])
        .args(["--concurrent", &plan.concurrent.to_string()])
        .args(["--warmup", &plan.warmup.to_string()])
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(io(format!("could not start the {mode} client")))?;
    if !output.status.success() {
        return Err(BenchError::Child(format!(
            "the {mode} client failed ({})",
            output.status
        )));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(RESULT_PREFIX))
        .ok_or_else(|| BenchError::Child(format!("the {mode} client printed no result")))?;
    serde_json::from_str(line).map_err(|e| {
        BenchError::Child(format!(
            "the {mode} client's result does not parse: {e}: {line}"
        ))
    })
}

/// Runs the whole benchmark and prints the table.
pub fn run(settings: Settings) -> Result<(), BenchError> {
    let exe = std::env::current_exe().map_err(io("could not find this executable"))?;
    let (server, url) = Server::start(&exe)?;
    println!(
        "end-to-end overhead: {} sequential + {} concurrent runs per client process, {} round(s), \
         mock server in its own process at {url}",
        settings.sequential, settings.concurrent, settings.rounds
    );
    println!(
        "a run: request (mock answers a get_weather call) -> tool -> request with the result (mock answers text)\n"
    );

    let mut rounds: Vec<(Measurement, Measurement)> = Vec::new();
    for round in 0..settings.rounds {
        let order = if round % 2 == 0 {
            [Mode::Baseline, Mode::Sdk]
        } else {
            [Mode::Sdk, Mode::Baseline]
        };
        let mut baseline = None;
        let mut sdk = None;
        for mode in order {
            let m = run_client(&exe, &url, mode, &settings)?;
            eprintln!(
                "round {}: {:<8} {:>8.1} CPU us/run",
                round + 1,
                mode,
                m.cpu_us_per_run()
            );
            match mode {
                Mode::Baseline => baseline = Some(m),
                Mode::Sdk => sdk = Some(m),
            }
        }
        if let (Some(b), Some(s)) = (baseline, sdk) {
            rounds.push((b, s));
        }
    }
    drop(server);
    print_table(&rounds);
    Ok(())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// One mode's medians over the rounds.
struct Row {
    seq_runs_per_s: f64,
    conc_runs_per_s: f64,
    seq_cpu_us: f64,
    conc_cpu_us: f64,
    cpu_us: f64,
    rss_mib: Option<f64>,
}

impl Row {
    fn of<'a>(ms: impl Iterator<Item = &'a Measurement> + Clone) -> Row {
        let med = |f: fn(&Measurement) -> f64| median(ms.clone().map(f).collect());
        let rss: Option<Vec<f64>> = ms
            .clone()
            .map(|m| m.peak_rss_kib.map(|k| k as f64 / 1024.0))
            .collect();
        Row {
            seq_runs_per_s: med(|m| m.sequential.runs_per_s()),
            conc_runs_per_s: med(|m| m.concurrent.runs_per_s()),
            seq_cpu_us: med(|m| m.sequential.cpu_us_per_run()),
            conc_cpu_us: med(|m| m.concurrent.cpu_us_per_run()),
            cpu_us: med(Measurement::cpu_us_per_run),
            rss_mib: rss.map(median),
        }
    }
}

fn print_table(rounds: &[(Measurement, Measurement)]) {
    let baseline = Row::of(rounds.iter().map(|(b, _)| b));
    let sdk = Row::of(rounds.iter().map(|(_, s)| s));
    println!(
        "{:<9} {:>11} {:>12} {:>15} {:>16} {:>15} {:>13}",
        "mode",
        "seq runs/s",
        "conc runs/s",
        "CPU us/run seq",
        "CPU us/run conc",
        "CPU us/run all",
        "peak RSS MiB"
    );
    for (name, row) in [("baseline", &baseline), ("sdk", &sdk)] {
        let rss = row
            .rss_mib
            .map_or_else(|| "n/a".to_owned(), |r| format!("{r:.1}"));
        println!(
            "{name:<9} {:>11.0} {:>12.0} {:>15.1} {:>16.1} {:>15.1} {rss:>13}",
            row.seq_runs_per_s, row.conc_runs_per_s, row.seq_cpu_us, row.conc_cpu_us, row.cpu_us
        );
    }

    // Paired per round, so slow drift on a shared machine hits both sides of each ratio.
    let paired: Vec<f64> = rounds
        .iter()
        .map(|(b, s)| s.cpu_us_per_run() / b.cpu_us_per_run())
        .collect();
    let ratio = median(paired.clone());
    let (lo, hi) = paired
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &r| {
            (lo.min(r), hi.max(r))
        });
    println!("\nratio sdk/baseline (medians):");
    println!(
        "  CPU per run   {ratio:.3}x  (per round: {lo:.3}x..{hi:.3}x; sequential {:.3}x, concurrent {:.3}x)",
        sdk.seq_cpu_us / baseline.seq_cpu_us,
        sdk.conc_cpu_us / baseline.conc_cpu_us
    );
    println!(
        "  runs/s        sequential {:.3}x, concurrent {:.3}x",
        sdk.seq_runs_per_s / baseline.seq_runs_per_s,
        sdk.conc_runs_per_s / baseline.conc_runs_per_s
    );
    if let (Some(s), Some(b)) = (sdk.rss_mib, baseline.rss_mib) {
        println!("  peak RSS      {:.3}x", s / b);
    }
    let verdict = if ratio <= TARGET { "met" } else { "NOT met" };
    println!(
        "\ntarget: SDK CPU per run within {TARGET:.2}x of the hand-written client's: {verdict} ({ratio:.3}x)"
    );
}
