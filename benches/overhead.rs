//! End-to-end overhead of the SDK against a hand-written client doing the same job.
//!
//! A run: request 1 (the mock model answers with a `get_weather` call) → the tool → request 2
//! with its result (the mock answers with text). The SDK side is an `#[agent]` with a
//! `#[tool]` over the OpenAI Chat Completions provider; the baseline is reqwest + serde_json
//! structs with a `match` on the tool name, calling the same function. Each does N sequential
//! runs, then C concurrent runs (spawned at once on a multi-thread runtime), after a warm-up.
//!
//! The mock server (`agent_sdk::testing::MockServer`) runs in a child process and each client
//! in its own child process, so the CPU time (getrusage, user + system) and the peak RSS
//! (VmHWM) are those of one client alone. The parent prints runs/s, CPU µs per run, peak RSS
//! and the SDK/baseline ratios.
//!
//! Run: `cargo bench --bench overhead` (or `cargo bench --bench overhead -- N C`).
//!
//! To profile one side, start the server and point a client at it under a profiler:
//! `overhead --serve` prints `URL <base url>` and serves until its stdin closes; then
//! `valgrind --tool=callgrind overhead --client sdk --url <base url> --runs 300 --concurrent 100`
//! (and the same with `--client baseline`) gives instruction counts to compare.

#[path = "overhead/args.rs"]
mod args;
#[path = "overhead/baseline.rs"]
mod baseline;
#[path = "overhead/job.rs"]
mod job;
#[path = "overhead/measure.rs"]
mod measure;
#[path = "overhead/report.rs"]
mod report;
#[path = "overhead/sdk.rs"]
mod sdk;
#[path = "overhead/server.rs"]
mod server;

use std::process::ExitCode;
use std::sync::Arc;

use args::{Command, Mode};
use measure::{Measurement, Plan, RESULT_PREFIX};

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
        Command::Parent(settings) => report::run(settings).map_err(|e| e.to_string()),
        Command::Serve => server::serve().map_err(|e| format!("server: {e}")),
        Command::Client { mode, url, plan } => client(mode, &url, plan),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("overhead: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A client process: measure one mode and print the result line.
fn client(mode: Mode, url: &str, plan: Plan) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("could not start the runtime: {e}"))?;
    let measurement: Measurement = runtime.block_on(async {
        match mode {
            Mode::Baseline => {
                let client = baseline::Baseline::new(url).map_err(|e| e.to_string())?;
                measure::measure(
                    mode.name(),
                    Arc::new(client),
                    |c| c.run(job::QUESTION),
                    plan,
                )
                .await
                .map_err(|e| e.to_string())
            }
            Mode::Sdk => {
                let client = sdk::Sdk::new(url).map_err(|e| e.to_string())?;
                measure::measure(
                    mode.name(),
                    Arc::new(client),
                    |c| c.run(job::QUESTION),
                    plan,
                )
                .await
                .map_err(|e| e.to_string())
            }
        }
    })?;
    let line = serde_json::to_string(&measurement).map_err(|e| e.to_string())?;
    println!("{RESULT_PREFIX}{line}");
    Ok(())
}
