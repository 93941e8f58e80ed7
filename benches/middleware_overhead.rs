//! What middleware costs per agent run, and what a human-in-the-loop round trip costs.
//!
//! One run is model → one tool call → model against an in-process model that answers at once
//! (the `agent_run` job, with an async tool so the blocking pool's thread hand-off does not
//! drown the difference). Three agents: no middleware, three middlewares that implement no
//! hook (each default runs once, on its first call, and the chain skips it from then on:
//! what is measured is the steady state of an agent whose middleware implements nothing),
//! and one with a review on the tool, whose run pauses and is resumed with an approval —
//! in process (the pause handed straight to `resume`), or after a trip through JSON
//! (`serde_json::to_string`, `from_str`), as a pause that travels to another process does.
//!
//! The JSON trip is compared with its own hand-written baseline: the same values (the
//! snapshot, the paused answer, each call with its review) in a struct with derived
//! `Serialize`/`Deserialize`, written and read with the same `serde_json` calls. What a pause
//! adds beyond that is its own cost; what both pay is the serde cost of what a pause carries.
//!
//! The machine is shared, so the sides are measured in paired rounds (each side once per
//! round, the order alternating) in CPU time of the bench's one thread (the runtime is
//! current-thread), and the report gives the median per-run time of each side and the
//! median of the per-round ratios.
//!
//! Run: `cargo bench --bench middleware_overhead` (or `-- ROUNDS RUNS_PER_ROUND`).
//!
//! Instruction counts, free of the machine's noise: build with `cargo bench --bench
//! middleware_overhead --no-run`, then `MW_ONLY=<side> valgrind --tool=callgrind <binary> 1 N`
//! for two values of N; the difference of the totals divided by the difference of N is the
//! cost of one run. Sides: `plain`, `wrapped` (3 no-op middlewares), `hitl_pass` (the review
//! middleware on a tool the model does not call: the middleware path, no pause), `trip` (pause → JSON →
//! resume), `inproc` (pause → resume), `json` (the pause's JSON round trip alone), `hand_json`
//! (its hand-written baseline). `MW_PRINT=1` prints the pause the JSON sides write.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use agentry::agent::{Outcome, Pause, RunSnapshot};
use agentry::middleware::{Allowed, Decision, DecisionKind, HumanInTheLoop, Middleware};
use agentry::model::{ChatRequest, ChatResponse};
use agentry::prelude::*;
use agentry::testing::FunctionModel;
use serde::{Deserialize, Serialize};

#[path = "shared/adder.rs"]
mod adder;
use adder::Adder;

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

/// The hand-written baseline of a pause's JSON: the same values in derived structs.
#[derive(Serialize, Deserialize)]
struct HandPause {
    format_version: u32,
    id: Option<String>,
    snapshot: RunSnapshot<()>,
    turn: u32,
    response: ChatResponse,
    calls: Vec<HandCall>,
    seal: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct HandCall {
    call: ToolCall,
    review: Option<HandReview>,
}

#[derive(Serialize, Deserialize)]
struct HandReview {
    description: String,
    allowed: Allowed,
}

impl HandPause {
    fn of(pause: &Pause<()>) -> HandPause {
        HandPause {
            format_version: pause.format_version,
            id: pause.id.clone(),
            snapshot: pause.snapshot.clone(),
            turn: pause.answer.turn,
            response: pause.answer.response.clone(),
            calls: pause
                .calls
                .iter()
                .map(|c| HandCall {
                    call: c.call.clone(),
                    review: c.review.as_ref().map(|r| HandReview {
                        description: r.description.clone(),
                        allowed: r.allowed,
                    }),
                })
                .collect(),
            seal: pause.seal.clone(),
        }
    }
}

/// CPU time of the calling thread (the runtime is current-thread: all of a run).
fn thread_cpu() -> Duration {
    // SAFETY: clock_gettime writes into the zeroed struct we own.
    let t = unsafe {
        let mut t: libc::timespec = std::mem::zeroed();
        libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t);
        t
    };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

/// The sides, in the order of a round.
const SIDES: [&str; 7] = [
    "plain",
    "wrapped",
    "hitl_pass",
    "inproc",
    "trip",
    "json",
    "hand_json",
];

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
    // The same middleware reviewing a tool the model does not call: the run takes the
    // middleware path and never pauses.
    let passed = Adder::builder(model())
        .middleware(HumanInTheLoop::new().review("other", DecisionKind::Approve))
        .build();

    let run_plain = || async { plain.run("2 + 3?", ()).await.unwrap().output };
    let run_wrapped = || async { wrapped.run("2 + 3?", ()).await.unwrap().output };
    let run_passed = || async { passed.run("2 + 3?", ()).await.unwrap().output };
    let pause = || async {
        match reviewed.run_or_pause("2 + 3?", ()).await.unwrap() {
            Outcome::Paused(pause) => pause,
            Outcome::Finished(_) => unreachable!("`add` is reviewed"),
        }
    };
    let resume = |pause: Box<Pause<()>>| async {
        let id = pause.calls[0].call.id.clone();
        let outcome = reviewed
            .resume(pause, [(id, Decision::Approve)], ())
            .await
            .unwrap();
        outcome.finished().unwrap().output
    };
    let in_process = || async { resume(pause().await).await };
    let round_trip = || async {
        let json = serde_json::to_string(&pause().await).unwrap();
        let pause: Box<Pause<()>> = serde_json::from_str(&json).unwrap();
        resume(pause).await
    };
    for out in [
        rt.block_on(run_plain()),
        rt.block_on(run_wrapped()),
        rt.block_on(run_passed()),
        rt.block_on(in_process()),
        rt.block_on(round_trip()),
    ] {
        assert_eq!(out, "The sum is 5.");
    }
    // The JSON trip alone, of the pause the round trip makes, and its baseline; both read
    // back what they wrote.
    let paused = rt.block_on(pause());
    let hand = HandPause::of(&paused);
    let json_trip = || {
        let json = serde_json::to_string(black_box(&paused)).unwrap();
        serde_json::from_str::<Pause<()>>(&json)
            .unwrap()
            .calls
            .len()
    };
    let hand_trip = || {
        let json = serde_json::to_string(black_box(&hand)).unwrap();
        serde_json::from_str::<HandPause>(&json)
            .unwrap()
            .calls
            .len()
    };
    let back: Pause<()> = serde_json::from_str(&serde_json::to_string(&paused).unwrap()).unwrap();
    assert_eq!(back.calls, paused.calls);
    assert_eq!(back.snapshot.messages, paused.snapshot.messages);
    assert_eq!(
        serde_json::to_value(HandPause::of(&back)).unwrap(),
        serde_json::to_value(&hand).unwrap()
    );

    // `runs` runs of one side, in one `block_on`.
    let many = |side: &str, runs: usize| {
        rt.block_on(async {
            for _ in 0..runs {
                match side {
                    "plain" => drop(black_box(run_plain().await)),
                    "wrapped" => drop(black_box(run_wrapped().await)),
                    "hitl_pass" => drop(black_box(run_passed().await)),
                    "inproc" => drop(black_box(in_process().await)),
                    "trip" => drop(black_box(round_trip().await)),
                    "json" => drop(black_box(json_trip())),
                    "hand_json" => drop(black_box(hand_trip())),
                    other => panic!("unknown side `{other}`; sides: {SIDES:?}"),
                }
            }
        })
    };
    if std::env::var_os("MW_PRINT").is_some() {
        println!("{}", serde_json::to_string_pretty(&paused).unwrap());
        return;
    }
    // For instruction counts under callgrind: `MW_ONLY=<side>` runs one side.
    if let Ok(side) = std::env::var("MW_ONLY") {
        many(&side, runs);
        return;
    }
    // Per-run CPU nanoseconds of `runs` runs of one side.
    let time = |side: &str| {
        let start = thread_cpu();
        many(side, runs);
        (thread_cpu() - start).as_nanos() as f64 / runs as f64
    };
    // Warm-up.
    for side in SIDES {
        black_box(time(side));
    }

    let mut per_side: Vec<Vec<f64>> = vec![Vec::new(); SIDES.len()];
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); SIDES.len()];
    for round in 0..rounds {
        let mut t = [0.0; SIDES.len()];
        let order: Vec<usize> = if round % 2 == 0 {
            (0..SIDES.len()).collect()
        } else {
            (0..SIDES.len()).rev().collect()
        };
        for i in order {
            t[i] = time(SIDES[i]);
        }
        for i in 0..SIDES.len() {
            per_side[i].push(t[i]);
            // Runs against a plain run; the JSON trip against its baseline.
            let base = if SIDES[i] == "json" { t[6] } else { t[0] };
            ratios[i].push(t[i] / base);
        }
    }
    println!(
        "middleware_overhead: {rounds} paired rounds of {runs} runs (CPU time of the bench's thread, medians)"
    );
    let label = [
        "run, no middleware",
        "run, 3 no-op middlewares",
        "run, a review that does not apply",
        "pause -> resume, in process",
        "pause -> JSON -> resume",
        "the pause's JSON round trip",
        "the same values by hand (derived serde)",
    ];
    let against = ["", "plain", "plain", "plain", "plain", "hand", ""];
    for i in 0..SIDES.len() {
        let t = median(&mut per_side[i]) / 1000.0;
        if against[i].is_empty() {
            println!("  {:<42} {t:>9.2} µs", label[i]);
        } else {
            let r = median(&mut ratios[i]);
            println!("  {:<42} {t:>9.2} µs  {r:.3}× {}", label[i], against[i]);
        }
    }
}
