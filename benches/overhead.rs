//! End-to-end overhead of the SDK against a hand-written client doing the same job.
//!
//! A run: request 1 (the mock model answers with a `get_weather` call) → the tool → request 2
//! with its result (the mock answers with text). The SDK side is an `#[agent]` with a
//! `#[tool]` over the OpenAI Chat Completions provider; the baseline is reqwest + serde_json
//! structs with a `match` on the tool name, calling the same function. Each does N sequential
//! runs, then C concurrent runs (spawned at once on a multi-thread runtime), after a warm-up.
//! Each also runs **streaming** (`--stream` on the client): the SDK through `agent.stream`,
//! consuming every event to `Done`; the baseline with `"stream": true`, `bytes_stream()`, a
//! hand-written SSE line splitter and serde structs for the chunks (`baseline_stream.rs`).
//!
//! The mock server (`agentry::testing::MockServer`, which answers in SSE chunks when the
//! request has `"stream": true`) runs in a child process and each client in its own child
//! process, so the CPU time (getrusage, user + system) and the peak RSS (VmHWM) are those of
//! one client alone.
//!
//! Modes of the parent (`cargo bench --bench overhead -- <flags>`):
//! - no flag: CPU µs per run (median of paired rounds, per-round ratio), runs/s and peak RSS
//!   of sequential / concurrent × plain / streaming (`report.rs`);
//! - `--instructions`: instructions per run under callgrind, the same four modes, each phase
//!   differenced to cancel start-up (`callgrind.rs`);
//! - `--cache`: L1 instruction and data cache misses and mispredicted branches per run,
//!   cachegrind's simulation, the same four modes differenced the same way (`cache.rs`): what
//!   CPU time sees beyond instructions;
//! - `--history`: instructions per run of a continued conversation of 10, 100 and 1000 prior
//!   messages, whole and inside the function that builds the request body, and the SDK's
//!   excess over the baseline beyond the body at each length (`curve.rs`, `history.rs`);
//! - `--cold`: process launch → first answer, wall clock, paired rounds (`cold.rs`);
//! - `--memory`: peak RSS of a client process making one run at a time and of one making
//!   bursts of C concurrent runs, plain and streaming, split into anonymous and file pages
//!   (`memory.rs`);
//! - `--self-test`: the argument and callgrind-output parsers' checks (`selftest.rs`; the
//!   bench has `harness = false`, so `#[test]`s would not run).
//!
//! To profile one side by hand, start the server and point a client at it under a profiler:
//! `overhead --serve` prints `URL <base url>` and serves until its stdin closes; then
//! `valgrind --tool=callgrind overhead --client sdk --url <base url> --runs 300 --concurrent 100`
//! (add `--stream`, `--phase seq|conc`, `--bursts B` or `--history K`; the same with
//! `--client baseline`) gives instruction counts to compare.

#[path = "overhead/args.rs"]
mod args;
#[path = "overhead/baseline.rs"]
mod baseline;
#[path = "overhead/baseline_error.rs"]
mod baseline_error;
#[path = "overhead/baseline_stream.rs"]
mod baseline_stream;
#[path = "overhead/cache.rs"]
mod cache;
#[path = "overhead/callgrind.rs"]
mod callgrind;
#[path = "overhead/child.rs"]
mod child;
#[path = "overhead/cold.rs"]
mod cold;
#[path = "overhead/curve.rs"]
mod curve;
#[path = "overhead/history.rs"]
mod history;
#[path = "overhead/job.rs"]
mod job;
#[path = "overhead/measure.rs"]
mod measure;
#[path = "overhead/memory.rs"]
mod memory;
#[path = "shared/process_server.rs"]
mod process_server;
#[path = "overhead/report.rs"]
mod report;
#[path = "overhead/sdk.rs"]
mod sdk;
#[path = "overhead/selftest.rs"]
mod selftest;
#[path = "overhead/server.rs"]
mod server;

use std::process::ExitCode;
use std::sync::Arc;

use args::{ClientArgs, Command, Kind, Mode};
use measure::{Measurement, RESULT_PREFIX};

fn main() -> ExitCode {
    let command = match args::parse(std::env::args().skip(1), |name| std::env::var(name).ok()) {
        Ok(command) => command,
        Err(e) => {
            eprintln!("overhead: {e}\n\n{}", args::USAGE);
            return ExitCode::from(2);
        }
    };
    let outcome = match command {
        Command::Help => {
            println!("{}", args::USAGE);
            Ok(())
        }
        Command::SelfTest => selftest::run(),
        Command::Parent(settings) => match settings.kind {
            Kind::Wall => report::run(settings),
            Kind::Instructions => callgrind::instructions(settings),
            Kind::Cache => cache::run(settings),
            Kind::History => curve::history(settings),
            Kind::Cold => cold::run(settings),
            Kind::Memory => memory::run(settings),
        }
        .map_err(|e| e.to_string()),
        Command::Serve => server::serve().map_err(|e| format!("server: {e}")),
        Command::Client(client_args) => client(client_args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("overhead: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A client process: measure one mode and print the result line (a cold client prints
/// nothing: it does one run and exits).
fn client(args: ClientArgs) -> Result<(), String> {
    let ClientArgs {
        mode,
        url,
        plan,
        stream,
        history,
        cold,
    } = args;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("could not start the runtime: {e}"))?;
    if cold {
        return runtime.block_on(cold_run(mode, &url));
    }
    let measurement: Measurement = runtime.block_on(async {
        let err = |e: &dyn std::fmt::Display| e.to_string();
        if let Some(k) = history {
            return history::measure(mode, &url, k, plan).await;
        }
        match mode {
            Mode::Baseline => {
                let client = Arc::new(baseline::Baseline::new(&url).map_err(|e| err(&e))?);
                if stream {
                    measure::measure(mode.name(), client, |c| c.run_stream(job::QUESTION), plan)
                        .await
                } else {
                    measure::measure(mode.name(), client, |c| c.run(job::QUESTION), plan).await
                }
            }
            Mode::Sdk => {
                let client = Arc::new(sdk::Sdk::new(&url).map_err(|e| err(&e))?);
                if stream {
                    measure::measure(mode.name(), client, |c| c.run_stream(job::QUESTION), plan)
                        .await
                } else {
                    measure::measure(mode.name(), client, |c| c.run(job::QUESTION), plan).await
                }
            }
        }
        .map_err(|e| err(&e))
    })?;
    let line = serde_json::to_string(&measurement).map_err(|e| e.to_string())?;
    println!("{RESULT_PREFIX}{line}");
    Ok(())
}

/// `--cold`: build the client, do one plain run, check its answer.
async fn cold_run(mode: Mode, url: &str) -> Result<(), String> {
    let answer = match mode {
        Mode::Baseline => {
            let client = Arc::new(baseline::Baseline::new(url).map_err(|e| e.to_string())?);
            client.run(job::QUESTION).await.map_err(|e| e.to_string())
        }
        Mode::Sdk => {
            let client = Arc::new(sdk::Sdk::new(url).map_err(|e| e.to_string())?);
            client.run(job::QUESTION).await.map_err(|e| e.to_string())
        }
    };
    measure::check("cold", answer).map_err(|e| e.to_string())
}
