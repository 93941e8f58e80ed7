//! `--history`: instructions per run of a continued conversation of 10, 100 and 1000 prior
//! messages, and how much of them is the request body.
//!
//! Each side is counted whole (`total`) and inside the function that turns the conversation
//! into the request body (`body`: its inclusive cost in the same profile): the SDK's
//! `WireFormat::body` (lowering and serializing), the baseline's `request_body` (what
//! `RequestBuilder::json` does). The
//! rest (`total - body`) is the work per turn beyond serializing
//! the body: the loop, the history handling, sending and reading. The target is on the SDK's
//! excess over the baseline in that rest, which must not grow with the conversation: no copy
//! of the history, no re-lowering of schemas, no re-validation of old messages.

use crate::args::{Mode, Settings};
use crate::callgrind::{check_valgrind, per_run};
use crate::child::{BenchError, Flags, Server, io};
use crate::measure::Phases;
use crate::report::median;

/// The SDK's excess beyond the body may grow at most this much from 10 to 1000 messages.
pub const FLAT_TARGET: f64 = 1.2;
/// The conversation lengths.
pub const HISTORY: [usize; 3] = [10, 100, 1000];

/// The function that builds the request body, per side (part of its name in the profile).
fn body_function(mode: Mode) -> &'static str {
    match mode {
        Mode::Sdk => "as agentry::providers::driver::WireFormat>::body",
        Mode::Baseline => "overhead::baseline::request_body",
    }
}

/// One side at one length: medians per run.
#[derive(Clone, Copy)]
struct Side {
    total: f64,
    body: f64,
}

impl Side {
    fn rest(self) -> f64 {
        self.total - self.body
    }
}

/// `--history`.
pub fn history(settings: Settings) -> Result<(), BenchError> {
    check_valgrind()?;
    let exe = std::env::current_exe().map_err(io("could not find this executable"))?;
    println!(
        "instructions per run of a continued conversation (callgrind), sequential plain, \
         (I(2N) - I(N)) / N with N = {}, warm-up {}, {} round(s); body = inside the function \
         that builds the request body (sdk: {}, baseline: {})\n",
        settings.sequential,
        settings.warmup,
        settings.rounds,
        body_function(Mode::Sdk),
        body_function(Mode::Baseline),
    );
    let mut settings = settings;
    // No concurrent warm-up burst: the history runs hold one conversation.
    settings.concurrent = 0;
    let mut rows = Vec::new();
    for k in HISTORY {
        let flags = Flags {
            history: Some(k),
            ..Flags::default()
        };
        let mut samples: [[Vec<f64>; 2]; 2] = Default::default();
        for round in 0..settings.rounds {
            // A server per length and round: it records every request, and these are long.
            let (server, url) = Server::start(&exe)?;
            let mut sides = [Mode::Baseline, Mode::Sdk];
            if round % 2 == 1 {
                sides.reverse();
            }
            for mode in sides {
                let side = usize::from(mode == Mode::Sdk);
                let (total, body) = per_run(
                    &exe,
                    &url,
                    mode,
                    &settings,
                    Phases::Sequential,
                    flags,
                    Some(body_function(mode)),
                )?;
                samples[side][0].push(total);
                samples[side][1].push(body);
                eprintln!(
                    "round {}: K = {k:<5} {mode:<8} {:>10.0} instructions/run, {:>10.0} in the body",
                    round + 1,
                    samples[side][0].last().copied().unwrap_or_default(),
                    samples[side][1].last().copied().unwrap_or_default(),
                );
            }
            drop(server);
        }
        let [b, s] = samples.map(|[total, body]| Side {
            total: median(total),
            body: median(body),
        });
        rows.push((k, b, s));
    }
    print_curve(&rows);
    Ok(())
}

fn print_curve(rows: &[(usize, Side, Side)]) {
    println!(
        "{:>6} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>12}",
        "K",
        "baseline",
        "sdk",
        "baseline body",
        "sdk body",
        "baseline rest",
        "sdk rest",
        "sdk excess"
    );
    for &(k, b, s) in rows {
        println!(
            "{k:>6} {:>14.0} {:>14.0} {:>14.0} {:>14.0} {:>14.0} {:>14.0} {:>12.0}",
            b.total,
            s.total,
            b.body,
            s.body,
            b.rest(),
            s.rest(),
            s.rest() - b.rest()
        );
    }
    println!(
        "(instructions per run, medians; rest = total - body; sdk excess = sdk rest - baseline rest)"
    );
    let (Some(&(k0, b0, s0)), Some(&(k1, b1, s1))) = (rows.first(), rows.last()) else {
        return;
    };
    println!(
        "\nwhole runs: sdk {:.3}x from K = {k0} to {k1} (baseline {:.3}x); the sdk's excess over the \
         baseline {:.0} -> {:.0}",
        s1.total / s0.total,
        b1.total / b0.total,
        s0.total - b0.total,
        s1.total - b1.total,
    );
    println!(
        "the body: sdk {:.0} -> {:.0}, baseline {:.0} -> {:.0} ({:.3}x the baseline's at K = {k1})",
        s0.body,
        s1.body,
        b0.body,
        b1.body,
        s1.body / b1.body
    );
    let (e0, e1) = (s0.rest() - b0.rest(), s1.rest() - b1.rest());
    if e0 <= 0.0 {
        println!("\nno excess beyond the body at K = {k0} ({e0:.0}): the ratio is not defined");
        return;
    }
    let flat = e1 / e0;
    let verdict = if flat <= FLAT_TARGET {
        "met"
    } else {
        "NOT met"
    };
    println!(
        "\nthe sdk's excess beyond the body at K = {k1} / at K = {k0}: {flat:.3}x ({e0:.0} -> {e1:.0}); \
         target <= {FLAT_TARGET:.2}x: {verdict}"
    );
}
