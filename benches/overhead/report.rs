//! The parent of the default mode: starts the server process, runs each client in its own
//! process — baseline and SDK, plain and streaming, alternating the order each round — and
//! prints the four modes' CPU per run, runs/s and peak RSS with the SDK/baseline ratios.

use crate::args::{Mode, Settings};
use crate::child::{self, BenchError, Flags, Server, io};
use crate::measure::{Measurement, Phase};

/// The SDK may use at most this many times the baseline's CPU per run, in each mode.
pub const TARGET: f64 = 1.10;
/// The SDK's peak RSS may be at most this many times the baseline's.
pub const RSS_TARGET: f64 = 1.2;

/// The four client processes of a round, as (mode, streaming).
const PROCESSES: [(Mode, bool); 4] = [
    (Mode::Baseline, false),
    (Mode::Sdk, false),
    (Mode::Baseline, true),
    (Mode::Sdk, true),
];

/// Runs the whole benchmark and prints the table.
pub fn run(settings: Settings) -> Result<(), BenchError> {
    let exe = std::env::current_exe().map_err(io("could not find this executable"))?;
    println!(
        "end-to-end overhead: {} sequential + {} concurrent runs per client process, {} round(s), \
         the mock server in its own process (a new one each round)",
        settings.sequential, settings.concurrent, settings.rounds
    );
    println!(
        "a run: request (mock answers a get_weather call) -> tool -> request with the result (mock answers text);\n\
         plain: one JSON answer per request; streaming: SSE chunks (stream_options.include_usage)\n"
    );

    let plan = settings.plan();
    let mut rounds: Vec<[Measurement; 4]> = Vec::new();
    for round in 0..settings.rounds {
        // A new server each round: it records every request it answers.
        let (server, url) = Server::start(&exe)?;
        let mut order = [0, 1, 2, 3];
        if round % 2 == 1 {
            order.reverse();
        }
        let mut got: [Option<Measurement>; 4] = Default::default();
        for i in order {
            let (mode, stream) = PROCESSES[i];
            let flags = Flags {
                stream,
                ..Flags::default()
            };
            let what = format!("{mode}{}", if stream { " streaming" } else { "" });
            let args = child::client_args(&url, mode, &plan, flags);
            let m = child::run_client(&exe, &args, &what)?;
            eprintln!(
                "round {}: {what:<18} {:>8.1} CPU us/run seq, {:>8.1} conc",
                round + 1,
                m.sequential.cpu_us_per_run(),
                m.concurrent.cpu_us_per_run()
            );
            got[i] = Some(m);
        }
        drop(server);
        if let [Some(a), Some(b), Some(c), Some(d)] = got {
            rounds.push([a, b, c, d]);
        }
    }
    print_table(&rounds);
    Ok(())
}

/// The median (NaN for none).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// The smallest and the largest.
pub fn range(values: &[f64]) -> (f64, f64) {
    values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &r| {
            (lo.min(r), hi.max(r))
        })
}

fn print_table(rounds: &[[Measurement; 4]]) {
    println!(
        "{:<18} {:>10} {:>10} {:>8} {:>17} {:>10} {:>10} {:>8}",
        "mode", "base us", "sdk us", "CPU x", "CPU x per round", "base /s", "sdk /s", "runs/s x"
    );
    println!("{:<18} {:>10} {:>10}", "", "CPU/run", "CPU/run");
    let mut worst = f64::NEG_INFINITY;
    for (name, stream, phase) in [
        (
            "sequential plain",
            false,
            sequential as fn(&Measurement) -> &Phase,
        ),
        ("concurrent plain", false, concurrent),
        ("sequential stream", true, sequential),
        ("concurrent stream", true, concurrent),
    ] {
        let (b, s) = if stream { (2, 3) } else { (0, 1) };
        let col = |i: usize, f: fn(&Phase) -> f64| -> Vec<f64> {
            rounds.iter().map(|r| f(phase(&r[i]))).collect()
        };
        let paired = |f: fn(&Phase) -> f64| -> Vec<f64> {
            rounds
                .iter()
                .map(|r| f(phase(&r[s])) / f(phase(&r[b])))
                .collect()
        };
        let cpu_ratios = paired(Phase::cpu_us_per_run);
        let (lo, hi) = range(&cpu_ratios);
        let ratio = median(cpu_ratios);
        worst = worst.max(ratio);
        println!(
            "{name:<18} {:>10.1} {:>10.1} {:>7.3}x {:>7.3}x..{:>6.3}x {:>10.0} {:>10.0} {:>7.3}x",
            median(col(b, Phase::cpu_us_per_run)),
            median(col(s, Phase::cpu_us_per_run)),
            ratio,
            lo,
            hi,
            median(col(b, Phase::runs_per_s)),
            median(col(s, Phase::runs_per_s)),
            median(paired(Phase::runs_per_s)),
        );
    }
    println!(
        "\n(CPU x: median over rounds of the per-round ratio sdk/baseline; us = median CPU us per run)"
    );
    let mut worst_rss = f64::NEG_INFINITY;
    for (name, b, s) in [("plain", 0, 1), ("streaming", 2, 3)] {
        let rss = |i: usize| -> Option<Vec<f64>> {
            rounds
                .iter()
                .map(|r| r[i].peak_rss_kib.map(|k| k as f64 / 1024.0))
                .collect()
        };
        if let (Some(bs), Some(ss)) = (rss(b), rss(s)) {
            let ratio = median(ss.iter().zip(&bs).map(|(s, b)| s / b).collect());
            worst_rss = worst_rss.max(ratio);
            println!(
                "peak RSS {name:<9}  baseline {:.1} MiB, sdk {:.1} MiB: {ratio:.3}x",
                median(bs),
                median(ss)
            );
        }
    }
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    println!(
        "\ntarget: SDK CPU per run within {TARGET:.2}x of the hand-written client's in all four modes: {} (worst {worst:.3}x)",
        verdict(worst <= TARGET)
    );
    if worst_rss.is_finite() {
        println!(
            "target: peak RSS within {RSS_TARGET:.2}x: {} (worst {worst_rss:.3}x)",
            verdict(worst_rss <= RSS_TARGET)
        );
    }
}

fn sequential(m: &Measurement) -> &Phase {
    &m.sequential
}

fn concurrent(m: &Measurement) -> &Phase {
    &m.concurrent
}
