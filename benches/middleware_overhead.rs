//! What middleware costs per agent run, and what a human-in-the-loop round trip costs.
//!
//! One run is model → one tool call → model against an in-process model that answers at once
//! (the `agent_run` job, with an async tool so the blocking pool's thread hand-off does not
//! drown the difference). Three agents: no middleware, three middlewares that implement no
//! hook (each default runs once, on its first call, and the chain skips it from then on:
//! what is measured is the steady state of an agent whose middleware implements nothing),
//! and one with a review on the tool whose run pauses, is written to JSON, read back and resumed.
//!
//! The machine is shared, so the sides are measured in paired rounds (A then B, B then A,
//! alternating) and the report gives the median per-run time of each side and the median of
//! the per-round differences.
//!
//! Run: `cargo bench --bench middleware_overhead` (or `-- ROUNDS RUNS_PER_ROUND`).
//!
//! Instruction counts, free of the machine's noise: build with `cargo bench --bench
//! middleware_overhead --no-run`, then `MW_ONLY=plain valgrind --tool=callgrind <binary> 1 N`
//! and the same with `MW_ONLY=wrapped` for two values of N; the difference of the totals
//! divided by the difference of N is the cost of one run.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use agentry::agent::{Outcome, Pause};
use agentry::middleware::{Decision, DecisionKind, HumanInTheLoop, Middleware};
use agentry::model::ChatRequest;
use agentry::prelude::*;
use agentry::testing::FunctionModel;

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// You add numbers with the `add` tool.
#[agent(tools(add))]
struct Adder;

/// A middleware with no hook of its own.
struct Noop;

impl<C: Send + Sync + 'static, S: Send + Sync + 'static> Middleware<C, S> for Noop {}

fn model() -> Arc<FunctionModel> {
    Arc::new(FunctionModel::new(|req: &ChatRequest| {
        match req.messages.last() {
            Some(Message::Tool(result)) => FunctionModel::text(format!(
                "The sum is {}.",
                Message::Tool(result.clone()).text()
            )),
            _ => FunctionModel::tool_call("add", serde_json::json!({ "a": 2, "b": 3 })),
        }
    }))
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let rounds = args.first().copied().unwrap_or(21);
    let runs = args.get(1).copied().unwrap_or(4000);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    let plain = Adder::builder(model()).build();
    let wrapped = Adder::builder(model())
        .middleware(Noop)
        .middleware(Noop)
        .middleware(Noop)
        .build();
    let reviewed = Adder::builder(model())
        .middleware(HumanInTheLoop::new().review("add", DecisionKind::Approve))
        .build();

    let run_plain = || async { plain.run("2 + 3?", ()).await.unwrap().output };
    let run_wrapped = || async { wrapped.run("2 + 3?", ()).await.unwrap().output };
    let round_trip = || async {
        let Outcome::Paused(pause) = reviewed.run_or_pause("2 + 3?", ()).await.unwrap() else {
            unreachable!("`add` is reviewed")
        };
        let json = serde_json::to_string(&pause).unwrap();
        let pause: Pause<()> = serde_json::from_str(&json).unwrap();
        let id = pause.calls[0].call.id.clone();
        let outcome = reviewed
            .resume(pause, [(id, Decision::Approve)], ())
            .await
            .unwrap();
        outcome.finished().unwrap().output
    };
    for out in [
        rt.block_on(run_plain()),
        rt.block_on(run_wrapped()),
        rt.block_on(round_trip()),
    ] {
        assert_eq!(out, "The sum is 5.");
    }

    // Per-run nanoseconds of `runs` runs of one side.
    macro_rules! time {
        ($f:expr) => {{
            let start = Instant::now();
            rt.block_on(async {
                for _ in 0..runs {
                    black_box($f().await);
                }
            });
            start.elapsed().as_nanos() as f64 / runs as f64
        }};
    }
    // For instruction counts under callgrind: `MW_ONLY=plain|wrapped|trip` runs one side.
    if let Ok(side) = std::env::var("MW_ONLY") {
        rt.block_on(async {
            for _ in 0..runs {
                match side.as_str() {
                    "plain" => black_box(run_plain().await),
                    "wrapped" => black_box(run_wrapped().await),
                    _ => black_box(round_trip().await),
                };
            }
        });
        return;
    }
    // Warm-up.
    black_box(time!(run_plain));
    black_box(time!(run_wrapped));
    black_box(time!(round_trip));

    let (mut a, mut b, mut diff) = (Vec::new(), Vec::new(), Vec::new());
    let (mut trip, mut trip_diff) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let (x, y) = if round % 2 == 0 {
            let x = time!(run_plain);
            (x, time!(run_wrapped))
        } else {
            let y = time!(run_wrapped);
            (time!(run_plain), y)
        };
        let t = time!(round_trip);
        a.push(x);
        b.push(y);
        diff.push(y - x);
        trip.push(t);
        trip_diff.push(t - x);
    }
    let (a, b, d) = (median(&mut a), median(&mut b), median(&mut diff));
    let (t, td) = (median(&mut trip), median(&mut trip_diff));
    println!("middleware_overhead: {rounds} paired rounds of {runs} runs (medians)");
    println!("  run, no middleware              {:>9.2} µs", a / 1000.0);
    println!("  run, 3 no-op middlewares        {:>9.2} µs", b / 1000.0);
    println!(
        "  added by the 3 middlewares      {:>9.2} µs per run ({:+.1}%)",
        d / 1000.0,
        d / a * 100.0
    );
    println!("  pause + JSON + resume round trip {:>8.2} µs", t / 1000.0);
    println!("  round trip minus a plain run    {:>9.2} µs", td / 1000.0);
}
