//! `--cold`: process launch -> first request answered. The parent spawns a client child with
//! `--cold` (it builds its runtime and client, does ONE plain run, checks the answer and
//! exits) and times spawn -> exit on the wall clock, baseline and SDK alternately over R
//! rounds, against a server that is already up.

use std::process::{Command, Stdio};
use std::time::Instant;

use crate::args::{Mode, Settings};
use crate::child::{self, BenchError, Flags, Server, io};
use crate::report::{median, range};

/// The SDK's cold start may be at most this many milliseconds longer than the baseline's.
pub const TARGET_MS: f64 = 1.0;

/// Runs the cold-start comparison and prints it.
pub fn run(settings: Settings) -> Result<(), BenchError> {
    let exe = std::env::current_exe().map_err(io("could not find this executable"))?;
    let (server, url) = Server::start(&exe)?;
    println!(
        "cold start: spawn -> exit of a client process that builds its client and does one run, \
         {} paired round(s)\n",
        settings.rounds
    );
    let plan = settings.plan();
    let flags = Flags {
        cold: true,
        ..Flags::default()
    };
    let (mut base, mut sdk) = (Vec::new(), Vec::new());
    for round in 0..settings.rounds {
        let mut sides = [Mode::Baseline, Mode::Sdk];
        if round % 2 == 1 {
            sides.reverse();
        }
        for mode in sides {
            let args = child::client_args(&url, mode, &plan, flags);
            let started = Instant::now();
            let status = Command::new(&exe)
                .args(&args)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::inherit())
                .status()
                .map_err(io(format!("could not start the {mode} client")))?;
            let ms = started.elapsed().as_secs_f64() * 1e3;
            if !status.success() {
                return Err(BenchError::Child(format!(
                    "the cold {mode} client failed ({status})"
                )));
            }
            eprintln!("round {}: {mode:<8} {ms:>8.2} ms", round + 1);
            match mode {
                Mode::Baseline => base.push(ms),
                Mode::Sdk => sdk.push(ms),
            }
        }
    }
    drop(server);
    let diffs: Vec<f64> = sdk.iter().zip(&base).map(|(s, b)| s - b).collect();
    let (lo, hi) = range(&diffs);
    let diff = median(diffs);
    println!(
        "baseline {:.2} ms, sdk {:.2} ms (medians)",
        median(base),
        median(sdk)
    );
    println!(
        "sdk - baseline: {diff:+.2} ms (median of per-round differences; range {lo:+.2}..{hi:+.2} ms)"
    );
    let verdict = if diff <= TARGET_MS { "met" } else { "NOT met" };
    println!("\ntarget: cold start within {TARGET_MS:.0} ms of the baseline's: {verdict}");
    Ok(())
}
