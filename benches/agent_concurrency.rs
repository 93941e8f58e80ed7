//! 10,000 concurrent agent runs on one tokio runtime: wall time, peak RSS, KiB per run.
//!
//! Each run is model → one tool call → model against an in-process model that yields to the
//! runtime before every answer, and whose first answer waits until all runs have started, so
//! every run is in flight at once. Memory is read from `/proc/self/status` (`VmRSS` before the
//! runs start, `VmHWM` at the end).
//!
//! Run: `cargo bench --bench agent_concurrency` (set `RUNS` to change the count).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use agentry::model::{ChatModel, ChatRequest, ChatResponse, EventStream, ModelError, ModelProfile};
use agentry::prelude::*;
use agentry::testing::FunctionModel;
use futures::future::BoxFuture;
use tokio::sync::watch;

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// You add numbers with the `add` tool.
#[agent(tools(add))]
struct Adder;

/// Holds each run's first request until every run has started.
struct GatedModel {
    inner: FunctionModel,
    started: AtomicUsize,
    gate: watch::Receiver<bool>,
}

impl ChatModel for GatedModel {
    fn model_name(&self) -> &str {
        self.inner.model_name()
    }
    fn provider(&self) -> &str {
        "gated"
    }
    fn profile(&self) -> &ModelProfile {
        self.inner.profile()
    }
    fn invoke(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        Box::pin(async move {
            if request.messages.len() == 2 {
                self.started.fetch_add(1, Ordering::SeqCst);
                let mut gate = self.gate.clone();
                let _ = gate.wait_for(|open| *open).await;
            }
            self.inner.invoke(request).await
        })
    }
    fn stream(&self, request: ChatRequest) -> EventStream {
        self.inner.stream(request)
    }
}

fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let (open, gate) = watch::channel(false);
    let model = Arc::new(GatedModel {
        inner: FunctionModel::new(|req: &ChatRequest| match req.messages.last() {
            Some(Message::Tool(_)) => FunctionModel::text("The sum is 5."),
            _ => FunctionModel::tool_call("add", serde_json::json!({ "a": 2, "b": 3 })),
        })
        .yielding(),
        started: AtomicUsize::new(0),
        gate,
    });
    let agent = Arc::new(Adder::builder(model.clone()).build());

    let before = status_kib("VmRSS:");
    let wall = Instant::now();
    let (ok, in_flight_rss) = rt.block_on(async {
        let handles: Vec<_> = (0..runs)
            .map(|i| {
                let agent = Arc::clone(&agent);
                tokio::spawn(async move { agent.run(format!("2 + 3? ({i})"), ()).await })
            })
            .collect();
        while model.started.load(Ordering::SeqCst) < runs {
            tokio::task::yield_now().await;
        }
        let in_flight_rss = status_kib("VmRSS:");
        let _ = open.send(true);
        let mut ok = 0;
        for handle in handles {
            if let Ok(Ok(run)) = handle.await {
                ok += usize::from(run.output == "The sum is 5.");
            }
        }
        (ok, in_flight_rss)
    });
    let elapsed = wall.elapsed();
    let peak = status_kib("VmHWM:");
    assert_eq!(ok, runs, "every run must succeed");
    let per_run = (peak.saturating_sub(before)) as f64 / runs as f64;
    println!("runs:              {runs} (all in flight at once)");
    println!(
        "wall time:         {elapsed:?} ({:.2} µs per run)",
        elapsed.as_secs_f64() * 1e6 / runs as f64
    );
    println!("RSS before:        {before} KiB");
    println!("RSS all in flight: {in_flight_rss} KiB");
    println!("peak RSS (VmHWM):  {peak} KiB");
    println!("KiB per run:       {per_run:.2} (peak − before) / runs");
}
