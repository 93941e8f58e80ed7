//! `--instructions` and `--history`: instructions per run, counted by callgrind (valgrind),
//! for machines without hardware counters (`perf stat -e instructions` needs them).
//!
//! Each client child runs under `valgrind --tool=callgrind --callgrind-out-file=<tmp>` (on a
//! runtime with one worker thread, see `count`), and the
//! `totals:` (or `summary:`) line of the output file is its instruction count. Start-up, the
//! warm-up and building the client are taken out by differencing two processes that differ
//! only in the measured phase: per run = (I(2N) - I(N)) / N for the sequential phase, and
//! (I(2 bursts of C) - I(1 burst of C)) / C for the concurrent one (so the concurrency stays C).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::args::{Mode, Settings};
use crate::child::{self, BenchError, Flags, Server, io};
use crate::measure::{Phases, Plan};
use crate::report::{median, range};

/// The SDK may execute at most this many times the baseline's instructions per run.
pub const TARGET: f64 = 1.05;

/// The instruction count in a callgrind output file: its `totals:` line, else its
/// `summary:` line (the first event, `Ir`).
pub fn parse_total(text: &str) -> Option<u64> {
    let find = |prefix: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(prefix))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
    };
    find("totals:").or_else(|| find("summary:"))
}

pub fn check_valgrind() -> Result<(), BenchError> {
    let found = Command::new("valgrind")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if found {
        Ok(())
    } else {
        Err(BenchError::Child(
            "valgrind is not installed (the instruction counts come from callgrind): \
             install it with `apt-get install valgrind` (or your system's package manager)"
                .to_owned(),
        ))
    }
}

/// Runs one client child under valgrind with `tool` (its options, without the output file),
/// on a runtime with one worker thread; returns the tool's output file, which the caller
/// reads and removes (it is removed here when the child fails).
pub fn profile_child(
    exe: &Path,
    url: &str,
    mode: Mode,
    plan: &Plan,
    flags: Flags,
    tool: &[&str],
) -> Result<PathBuf, BenchError> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("overhead-{}-{n}.valgrind", std::process::id()));
    // One runtime worker: valgrind runs one thread at a time, and an idle worker spinning for
    // work executes a number of instructions that depends on timing (±5% per run at 1000
    // messages with two workers, ±0.2% with one). Both sides run so.
    let mut args = vec!["TOKIO_WORKER_THREADS=1".to_owned(), "valgrind".to_owned()];
    args.extend(tool.iter().map(|a| a.to_string()));
    args.push("-q".to_owned());
    args.push(format!("--{}-out-file={}", tool_name(tool), out.display()));
    args.push(exe.display().to_string());
    args.extend(child::client_args(url, mode, plan, flags));
    match child::run_client(Path::new("env"), &args, mode.name()) {
        Ok(_) => Ok(out),
        Err(e) => {
            let _ = std::fs::remove_file(&out);
            Err(e)
        }
    }
}

/// The tool named by `--tool=NAME` in `tool` (callgrind if none).
fn tool_name<'a>(tool: &[&'a str]) -> &'a str {
    tool.iter()
        .find_map(|a| a.strip_prefix("--tool="))
        .unwrap_or("callgrind")
}

/// Instructions of one client child under callgrind: the whole process, and those inside the
/// first function whose name contains `within` (with everything it calls, on its own thread:
/// its inclusive cost in the profile, read with `callgrind_annotate --inclusive=yes`), or 0.
fn count(
    exe: &Path,
    url: &str,
    mode: Mode,
    plan: &Plan,
    flags: Flags,
    within: Option<&str>,
) -> Result<(u64, u64), BenchError> {
    let out = profile_child(exe, url, mode, plan, flags, &["--tool=callgrind"])?;
    let text = std::fs::read_to_string(&out);
    let inside = match within {
        Some(name) => inclusive_cost(&out, name),
        None => Ok(0),
    };
    let _ = std::fs::remove_file(&out);
    let text = text.map_err(io(format!("could not read {}", out.display())))?;
    let total = parse_total(&text).ok_or_else(|| {
        BenchError::Child(format!("no totals: or summary: line in {}", out.display()))
    })?;
    Ok((total, inside?))
}

/// The inclusive instruction count of the first function in `profile` whose name contains
/// `name`.
fn inclusive_cost(profile: &Path, name: &str) -> Result<u64, BenchError> {
    let output = Command::new("callgrind_annotate")
        .args(["--inclusive=yes", "--threshold=100"])
        .arg(profile)
        .stderr(Stdio::inherit())
        .output()
        .map_err(io(
            "could not run callgrind_annotate (it comes with valgrind)",
        ))?;
    let text = String::from_utf8_lossy(&output.stdout);
    parse_inclusive(&text, name).ok_or_else(|| {
        BenchError::Child(format!(
            "no function named like `{name}` in the profile: was it inlined?"
        ))
    })
}

/// From `callgrind_annotate --inclusive=yes` output (`1,234 (5.0%)  file:function [object]`),
/// the count of the first function whose name contains `name`.
pub fn parse_inclusive(annotated: &str, name: &str) -> Option<u64> {
    annotated.lines().find_map(|line| {
        let (count, rest) = line.trim_start().split_once(' ')?;
        if !rest.contains(name) {
            return None;
        }
        count.replace(',', "").parse().ok()
    })
}

/// The two plans of a differenced phase (the phase once, then twice: twice the sequential
/// runs, or two bursts) and the number of runs the second has more.
pub fn phase_plans(settings: &Settings, phases: Phases) -> (Plan, Plan, f64) {
    let mut one = settings.plan();
    one.phases = phases;
    let mut two = one;
    let extra = match phases {
        Phases::Concurrent => {
            two.bursts = 2;
            settings.concurrent
        }
        _ => {
            two.sequential *= 2;
            settings.sequential
        }
    };
    (one, two, extra as f64)
}

/// Instructions per run of one phase: the difference of two processes over the extra runs;
/// the same for the instructions inside the function named like `within` (0 without).
pub fn per_run(
    exe: &Path,
    url: &str,
    mode: Mode,
    settings: &Settings,
    phases: Phases,
    flags: Flags,
    within: Option<&str>,
) -> Result<(f64, f64), BenchError> {
    let (one, two, extra) = phase_plans(settings, phases);
    let one = count(exe, url, mode, &one, flags, within)?;
    let two = count(exe, url, mode, &two, flags, within)?;
    Ok((
        (two.0 as f64 - one.0 as f64) / extra,
        (two.1 as f64 - one.1 as f64) / extra,
    ))
}

/// The four modes: name, phase, streamed.
pub const MODES: [(&str, Phases, bool); 4] = [
    ("sequential plain", Phases::Sequential, false),
    ("concurrent plain", Phases::Concurrent, false),
    ("sequential stream", Phases::Sequential, true),
    ("concurrent stream", Phases::Concurrent, true),
];

/// `--instructions`: the four modes.
pub fn instructions(settings: Settings) -> Result<(), BenchError> {
    check_valgrind()?;
    let exe = std::env::current_exe().map_err(io("could not find this executable"))?;
    let (server, url) = Server::start(&exe)?;
    println!(
        "instructions per run (callgrind), (I(2N) - I(N)) / N: N = {} sequential, bursts of C = {} \
         concurrent, warm-up {} + one burst, {} round(s)\n",
        settings.sequential, settings.concurrent, settings.warmup, settings.rounds
    );
    let mut results = vec![(Vec::new(), Vec::new()); MODES.len()];
    for round in 0..settings.rounds {
        for (i, (name, phases, stream)) in MODES.iter().enumerate() {
            let flags = Flags {
                stream: *stream,
                ..Flags::default()
            };
            let mut sides = [Mode::Baseline, Mode::Sdk];
            if round % 2 == 1 {
                sides.reverse();
            }
            for mode in sides {
                let (n, _) = per_run(&exe, &url, mode, &settings, *phases, flags, None)?;
                eprintln!(
                    "round {}: {name:<18} {mode:<8} {n:>10.0} instructions/run",
                    round + 1
                );
                match mode {
                    Mode::Baseline => results[i].0.push(n),
                    Mode::Sdk => results[i].1.push(n),
                }
            }
        }
    }
    drop(server);
    println!(
        "{:<18} {:>16} {:>16} {:>8}   per-round ratios",
        "mode", "baseline instr", "sdk instr", "ratio"
    );
    let mut worst = f64::NEG_INFINITY;
    for ((name, ..), (b, s)) in MODES.iter().zip(results) {
        let paired: Vec<f64> = s.iter().zip(&b).map(|(s, b)| s / b).collect();
        let (lo, hi) = range(&paired);
        let (b, s) = (median(b), median(s));
        worst = worst.max(s / b);
        println!(
            "{name:<18} {b:>16.0} {s:>16.0} {:>7.3}x   {lo:.3}x..{hi:.3}x",
            s / b
        );
    }
    println!(
        "(medians over the rounds of instructions per run; ratio = sdk median / baseline median)"
    );
    let verdict = if worst <= TARGET { "met" } else { "NOT met" };
    println!(
        "\ntarget: SDK instructions per run within {TARGET:.2}x of the hand-written client's in all four modes: {verdict} (worst {worst:.3}x)"
    );
    Ok(())
}
