//! `--memory`: the peak resident set (VmHWM) of a client process that makes one run at a
//! time, and of one that makes bursts of C concurrent runs, plain and streaming, each client
//! in its own process; the SDK's excess over the baseline in MiB, median of the per-round
//! differences. Each result also splits the resident set at the end into anonymous pages
//! (heap, stacks) and file pages (the executable's code and read-only data, libraries), which
//! says where an excess lives.

use crate::args::{Mode, Settings};
use crate::child::{self, BenchError, Flags, Server, io};
use crate::measure::{Measurement, Phases, Plan};
use crate::report::{median, range};

/// The SDK's peak RSS may exceed the baseline's by at most this many MiB.
pub const TARGET_MIB: f64 = 1.0;

/// The measured processes: (name, streaming, sequential).
const CASES: [(&str, bool, bool); 4] = [
    ("sequential plain", false, true),
    ("concurrent plain", false, false),
    ("sequential stream", true, true),
    ("concurrent stream", true, false),
];

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// What a client process of `case` runs.
fn plan(settings: &Settings, sequential: bool) -> Plan {
    if sequential {
        Plan {
            sequential: settings.sequential,
            concurrent: 0,
            warmup: settings.warmup,
            phases: Phases::Sequential,
            bursts: 0,
        }
    } else {
        // The warm-up burst of C, then one measured burst of C.
        Plan {
            sequential: 0,
            concurrent: settings.concurrent,
            warmup: 0,
            phases: Phases::Concurrent,
            bursts: 1,
        }
    }
}

pub fn run(settings: Settings) -> Result<(), BenchError> {
    let exe = std::env::current_exe().map_err(io("could not find this executable"))?;
    println!(
        "peak RSS (VmHWM) per client process: sequential = {} warm-up + {} runs one at a time; \
         concurrent = 2 bursts of {} runs; {} round(s), order alternating",
        settings.warmup, settings.sequential, settings.concurrent, settings.rounds
    );
    // results[case][mode: 0 baseline, 1 sdk][round]
    let mut results: Vec<[Vec<Measurement>; 2]> =
        CASES.iter().map(|_| Default::default()).collect();
    for round in 0..settings.rounds {
        let (server, url) = Server::start(&exe)?;
        for (c, &(name, stream, sequential)) in CASES.iter().enumerate() {
            let mut modes = [Mode::Baseline, Mode::Sdk];
            if round % 2 == 1 {
                modes.reverse();
            }
            for mode in modes {
                let flags = Flags {
                    stream,
                    ..Flags::default()
                };
                let args = child::client_args(&url, mode, &plan(&settings, sequential), flags);
                let m = child::run_client(&exe, &args, &format!("{mode} {name}"))?;
                results[c][usize::from(mode == Mode::Sdk)].push(m);
            }
        }
        drop(server);
    }
    println!(
        "{:<18} {:>9} {:>9} {:>9} {:>15}   {:>19} {:>19} {:>11} {:>9}",
        "mode",
        "base MiB",
        "sdk MiB",
        "sdk-base",
        "per round",
        "base anon/file",
        "sdk anon/file",
        "connections",
        "same conn"
    );
    let mut worst = f64::NEG_INFINITY;
    for (c, &(name, _, _)) in CASES.iter().enumerate() {
        let peak = |side: usize| -> Option<Vec<f64>> {
            results[c][side]
                .iter()
                .map(|m| m.peak_rss_kib.map(mib))
                .collect()
        };
        let (Some(base), Some(sdk)) = (peak(0), peak(1)) else {
            println!("{name:<18} (no VmHWM in /proc/self/status)");
            continue;
        };
        let diffs: Vec<f64> = sdk.iter().zip(&base).map(|(s, b)| s - b).collect();
        let (lo, hi) = range(&diffs);
        let diff = median(diffs);
        worst = worst.max(diff);
        let split = |side: usize| -> String {
            let anon = median(
                results[c][side]
                    .iter()
                    .filter_map(|m| m.rss_split_kib.map(|s| mib(s.anon)))
                    .collect(),
            );
            let file = median(
                results[c][side]
                    .iter()
                    .filter_map(|m| m.rss_split_kib.map(|s| mib(s.file)))
                    .collect(),
            );
            format!("{anon:.1} / {file:.1}")
        };
        let sockets = |side: usize| -> Vec<f64> {
            results[c][side]
                .iter()
                .filter_map(|m| m.sockets.map(|n| n as f64))
                .collect()
        };
        let (base_conns, sdk_conns) = (sockets(0), sockets(1));
        let same = match at_equal_connections([(&base, &base_conns), (&sdk, &sdk_conns)]) {
            Some(diff) => format!("{diff:+.2}"),
            None => "-".to_owned(),
        };
        let connections = format!("{:.0} / {:.0}", median(base_conns), median(sdk_conns));
        println!(
            "{name:<18} {:>9.2} {:>9.2} {:>+9.2} {:>+6.2}..{:>+6.2}   {:>19} {:>19} {connections:>11} {same:>9}",
            median(base),
            median(sdk),
            diff,
            lo,
            hi,
            split(0),
            split(1)
        );
    }
    println!(
        "\n(sdk-base: median of the per-round differences, MiB; anon/file: the resident set at \
         the end, anonymous and file pages, MiB; connections: sockets open at the end, base / \
         sdk, the connections each client's pool opened, which depends on how its requests \
         interleave; same conn: sdk-base at an equal number of connections, the mean \
         difference less the common slope of peak over connections times the difference in \
         connections, '-' where neither side's count varies)\ntarget: the SDK's peak RSS within +{TARGET_MIB:.1} MiB \
         of the baseline's in every mode: {} (worst {worst:+.2} MiB)",
        if worst <= TARGET_MIB {
            "met"
        } else {
            "NOT met"
        }
    );
    Ok(())
}

/// The SDK's excess over the baseline at an equal number of open connections: both sides'
/// peaks (MiB) against their connection counts, one common slope fitted within each side
/// (ordinary least squares on the values centred per side), and the difference of the means
/// less that slope times the difference of the mean connection counts. `None` when no
/// side's count varies, so no slope can be fitted.
pub fn at_equal_connections(sides: [(&Vec<f64>, &Vec<f64>); 2]) -> Option<f64> {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    let mut means = [(0.0, 0.0); 2];
    for (i, (peaks, conns)) in sides.iter().enumerate() {
        if peaks.len() != conns.len() || peaks.is_empty() {
            return None;
        }
        let (mp, mc) = (mean(peaks), mean(conns));
        for (p, c) in peaks.iter().zip(conns.iter()) {
            sxy += (c - mc) * (p - mp);
            sxx += (c - mc) * (c - mc);
        }
        means[i] = (mp, mc);
    }
    if sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    Some((means[1].0 - means[0].0) - slope * (means[1].1 - means[0].1))
}
