//! `--instructions` and `--history`: instructions per run, counted by callgrind (valgrind),
//! for machines without hardware counters (`perf stat -e instructions` needs them).
//!
//! Each client child runs under `valgrind --tool=callgrind --callgrind-out-file=<tmp>` (on a
//! runtime with one worker thread, see `count`), and the
//! `totals:` (or `summary:`) line of the output file is its instruction count. Start-up, the
//! warm-up and building the client are taken out by differencing two processes that differ
//! only in the measured phase: per run = (I(2N) - I(N)) / N for the sequential phase, and
//! (I(2 bursts of C) - I(1 burst of C)) / C for the concurrent one (so the concurrency stays C).

use std::path::Path;
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
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!("overhead-{}-{n}.callgrind", std::process::id()));
    // One runtime worker: valgrind runs one thread at a time, and an idle worker spinning for
    // work executes a number of instructions that depends on timing (±5% per run at 1000
    // messages with two workers, ±0.2% with one). Both sides run so.
    let mut args = vec![
        "TOKIO_WORKER_THREADS=1".to_owned(),
        "valgrind".to_owned(),
        "--tool=callgrind".to_owned(),
        "-q".to_owned(),
        format!("--callgrind-out-file={}", out.display()),
        exe.display().to_string(),
    ];
    args.extend(child::client_args(url, mode, plan, flags));
    let outcome = child::run_client(Path::new("env"), &args, mode.name());
    let text = std::fs::read_to_string(&out);
    let inside = match (&outcome, within) {
        (Ok(_), Some(name)) => inclusive_cost(&out, name),
        _ => Ok(0),
    };
    let _ = std::fs::remove_file(&out);
    outcome?;
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
    let mut plan = settings.plan();
    plan.phases = phases;
    let extra = match phases {
        Phases::Concurrent => settings.concurrent,
        _ => settings.sequential,
    } as f64;
    let one = count(exe, url, mode, &plan, flags, within)?;
    match phases {
        Phases::Concurrent => plan.bursts = 2,
        _ => plan.sequential *= 2,
    }
    let two = count(exe, url, mode, &plan, flags, within)?;
    Ok((
        (two.0 as f64 - one.0 as f64) / extra,
        (two.1 as f64 - one.1 as f64) / extra,
    ))
}

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
    let modes = [
        ("sequential plain", Phases::Sequential, false),
        ("concurrent plain", Phases::Concurrent, false),
        ("sequential stream", Phases::Sequential, true),
        ("concurrent stream", Phases::Concurrent, true),
    ];
    let mut results = vec![(Vec::new(), Vec::new()); modes.len()];
    for round in 0..settings.rounds {
        for (i, (name, phases, stream)) in modes.iter().enumerate() {
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
    for ((name, ..), (b, s)) in modes.iter().zip(results) {
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
