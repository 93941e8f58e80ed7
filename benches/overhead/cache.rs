//! `--cache`: per run, the cache misses and mispredicted branches of cachegrind's simulation
//! (valgrind), for the four modes.
//!
//! CPU time sees more than instructions: at equal instructions, a run that touches more code
//! and data (a bigger footprint, more dynamic calls) misses the caches more and waits for
//! memory. These counts are that part, made deterministic (the hardware counters that would
//! give it directly are not available on every machine). They are differenced like
//! `--instructions`: (E(2N) - E(N)) / N.

use std::path::Path;

use crate::args::{Mode, Settings};
use crate::callgrind::{MODES, check_valgrind, phase_plans, profile_child};
use crate::child::{BenchError, Flags, Server, io};

/// The options cachegrind runs with. The cache and branch simulations are off by default. The
/// caches are given (32 KiB 8-way L1s, an 8 MiB 16-way last level, 64-byte lines, as on most
/// x86-64 machines) rather than read from this machine's CPU, so that counts compare across
/// machines (and valgrind does not warn about a last level it cannot simulate).
const TOOL: [&str; 6] = [
    "--tool=cachegrind",
    "--cache-sim=yes",
    "--branch-sim=yes",
    "--I1=32768,8,64",
    "--D1=32768,8,64",
    "--LL=8388608,16,64",
];

/// What is reported, as (heading, the cachegrind events summed into it).
const COLUMNS: [(&str, &[&str]); 4] = [
    ("instructions", &["Ir"]),
    ("L1i misses", &["I1mr"]),
    ("L1d misses", &["D1mr", "D1mw"]),
    ("mispredicted branches", &["Bcm", "Bim"]),
];

/// The columns' values from a cachegrind output file: its `events:` line names the numbers
/// of its `summary:` line.
pub fn parse_columns(text: &str) -> Option<[u64; COLUMNS.len()]> {
    let line = |prefix: &str| text.lines().find_map(|l| l.strip_prefix(prefix));
    let names: Vec<&str> = line("events:")?.split_whitespace().collect();
    let values: Vec<u64> = line("summary:")?
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    if names.len() != values.len() {
        return None;
    }
    let mut out = [0; COLUMNS.len()];
    for (slot, (_, events)) in out.iter_mut().zip(COLUMNS) {
        for event in events {
            *slot += values[names.iter().position(|n| n == event)?];
        }
    }
    Some(out)
}

/// One client child's columns.
fn columns(
    exe: &Path,
    url: &str,
    mode: Mode,
    plan: &crate::measure::Plan,
    flags: Flags,
) -> Result<[u64; COLUMNS.len()], BenchError> {
    let out = profile_child(exe, url, mode, plan, flags, &TOOL)?;
    let text = std::fs::read_to_string(&out);
    let _ = std::fs::remove_file(&out);
    let text = text.map_err(io(format!("could not read {}", out.display())))?;
    parse_columns(&text).ok_or_else(|| {
        BenchError::Child(format!(
            "no events: and summary: lines with {} in {}",
            COLUMNS
                .iter()
                .flat_map(|(_, e)| e.iter())
                .copied()
                .collect::<Vec<_>>()
                .join(", "),
            out.display()
        ))
    })
}

/// `--cache`: the four modes, each client differenced over one phase; medians of the rounds.
pub fn run(settings: Settings) -> Result<(), BenchError> {
    check_valgrind()?;
    let exe = std::env::current_exe().map_err(io("could not find this executable"))?;
    let (server, url) = Server::start(&exe)?;
    println!(
        "cache misses and mispredicted branches per run (cachegrind's simulation), \
         (E(2N) - E(N)) / N: N = {} sequential, bursts of C = {} concurrent, {} round(s)\n",
        settings.sequential, settings.concurrent, settings.rounds
    );
    // Per mode, per side (baseline, sdk), per column: one value a round.
    let mut results: Vec<[[Vec<f64>; COLUMNS.len()]; 2]> =
        MODES.iter().map(|_| Default::default()).collect();
    for round in 0..settings.rounds {
        for (i, (name, phases, stream)) in MODES.iter().enumerate() {
            let flags = Flags {
                stream: *stream,
                ..Flags::default()
            };
            let (one, two, extra) = phase_plans(&settings, *phases);
            for (side, mode) in [Mode::Baseline, Mode::Sdk].into_iter().enumerate() {
                let a = columns(&exe, &url, mode, &one, flags)?;
                let b = columns(&exe, &url, mode, &two, flags)?;
                for (c, values) in results[i][side].iter_mut().enumerate() {
                    values.push((b[c] as f64 - a[c] as f64) / extra);
                }
                eprintln!("round {}: {name:<18} {mode:<8} done", round + 1);
            }
        }
    }
    drop(server);
    print!("{:<18}", "mode");
    for (heading, _) in COLUMNS {
        print!(" {:>30}", format!("{heading} base / sdk"));
    }
    println!();
    for ((name, ..), [base, sdk]) in MODES.iter().zip(results) {
        print!("{name:<18}");
        for (b, s) in base.into_iter().zip(sdk) {
            let (b, s) = (crate::report::median(b), crate::report::median(s));
            print!(" {:>30}", format!("{b:.0} / {s:.0} ({:.2}x)", s / b));
        }
        println!();
    }
    println!(
        "(medians over the rounds, per run; L1d = data reads and writes that miss, \
         mispredicted = conditional and indirect)"
    );
    Ok(())
}
