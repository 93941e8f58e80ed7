//! What a whole `thread.run` costs as the thread grows: a run on a thread this agent ran last
//! (its decoded messages cached, only what is newer loaded), at 10 and at 5,000 messages, on
//! SQLite (file, WAL, `synchronous = NORMAL`) and Postgres (a local server over loopback,
//! `synchronous_commit = off`). Baselines in the same run: the same run with the cache off
//! (`thread_cache(0)`: every run loads and decodes the whole thread, as before the cache), and
//! serializing the request body of the thread to JSON, the part of a real run that grows with
//! the thread whatever the storage does (a provider sends the whole conversation).
//!
//! The model answers at once after serializing the request's messages to JSON, as a provider
//! serializes the request body; the `request_body` baseline measures that serialization alone,
//! and the ratio the goal is about is net of it:
//! `(cached_5000 - body_5000) / (cached_10 - body_10)`. A third baseline: copying and dropping
//! the thread's messages, what a run paid when `RunResult::messages` was the caller's own copy
//! of the whole thread (it is now shared with the cache). A run appends two messages (the input
//! and the answer) and writes two checkpoints. Each measured chunk of 20 runs starts on a fresh
//! fork of a template thread whose first run (untimed) fills the cache.
//!
//! Run: `cargo bench -p agentry --features testing,sqlite,postgres --bench thread_cost`.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use agentry::agent::{Agent, AgentBuilder, NoTools};
use agentry::model::ChatRequest;
use agentry::output::TextOutput;
use agentry::persist::{
    CheckpointRef, CheckpointWrite, Checkpointer, PostgresCheckpointer, SqliteCheckpointer,
};
use agentry::testing::{FunctionModel, PostgresServer};
use agentry::{Message, ToolCall};
use criterion::Criterion;
use serde_json::json;
use tokio::runtime::Runtime;

const CHUNK: u64 = 20;
const SIZES: [usize; 2] = [10, 5000];

type Bench = Agent<NoTools, TextOutput, (), ()>;

fn message(i: usize) -> Message {
    match i % 4 {
        0 => Message::user(format!("What is the weather in city {i}?")),
        1 => Message::assistant_tool_calls(vec![ToolCall::new(
            format!("call_{i}"),
            "get_weather",
            r#"{"city":"Paris","units":"celsius"}"#,
        )]),
        2 => Message::tool_result(
            format!("call_{}", i - 1),
            "get_weather",
            "Paris: 18°C, clear skies, light wind from the west at 10 km/h, humidity 60%.",
        ),
        _ => Message::assistant("It is 18°C and clear in Paris, a fine day for a walk."),
    }
}

fn agent(cp: Arc<dyn Checkpointer>, cache: usize) -> Bench {
    // The model serializes the request's messages, as a provider serializes the request
    // body: the one part of a real run that must grow with the thread.
    let model = FunctionModel::new(|request: &ChatRequest| {
        std::hint::black_box(serde_json::to_vec(&*request.messages).unwrap());
        FunctionModel::text("Noted.")
    });
    AgentBuilder::<_, _, (), ()>::new(model, NoTools)
        .instructions("You answer questions about the weather.")
        .shared_checkpointer(cp)
        .thread_cache(cache)
        .build()
}

/// Writes a template thread with `n` messages (idle, state `null`).
async fn template(cp: &dyn Checkpointer, name: &str, n: usize) -> CheckpointRef {
    let thread = format!("{name}-{n}");
    let messages: Vec<Message> = (0..n).map(message).collect();
    let meta = cp
        .put(CheckpointWrite::first(&thread, &messages, &json!(null)))
        .await
        .unwrap();
    CheckpointRef::new(thread, meta.step)
}

fn next_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Time of `iters` runs on threads forked from `from`, each fork's first run untimed. On
/// SQLite, `wal` is checkpointed after the untimed part, so the timed runs do not pay for
/// moving the fork's copy of the thread out of the write-ahead log.
fn runs(
    rt: &Runtime,
    agent: &Bench,
    cp: &dyn Checkpointer,
    wal: Option<&sqlx::SqlitePool>,
    from: &CheckpointRef,
    iters: u64,
) -> Duration {
    let mut total = Duration::ZERO;
    let mut done = 0;
    rt.block_on(async {
        while done < iters {
            let thread = format!("{}-run-{}", from.thread_id, next_id());
            cp.fork(from, &thread).await.unwrap();
            agent
                .thread(thread.as_str())
                .run("And tomorrow?", ())
                .await
                .unwrap();
            if let Some(pool) = wal {
                sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
                    .execute(pool)
                    .await
                    .unwrap();
            }
            let chunk = CHUNK.min(iters - done);
            let start = Instant::now();
            for _ in 0..chunk {
                let run = agent
                    .thread(thread.as_str())
                    .run("And tomorrow?", ())
                    .await
                    .unwrap();
                std::hint::black_box(run);
            }
            total += start.elapsed();
            done += chunk;
            cp.delete_thread(&thread).await.unwrap();
        }
    });
    total
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sqlite = rt
        .block_on(SqliteCheckpointer::open(dir.path().join("bench.db")))
        .unwrap();
    let pg_server = PostgresServer::start_with_settings(&["synchronous_commit=off"])
        .unwrap_or_else(|e| panic!("{e}"));
    let postgres = rt
        .block_on(PostgresCheckpointer::connect(&pg_server.url()))
        .unwrap();

    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(20)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));

    let pool = sqlite.pool().clone();
    let backends: [(&str, Arc<dyn Checkpointer>, Option<&sqlx::SqlitePool>); 2] = [
        ("sqlite", Arc::new(sqlite), Some(&pool)),
        ("postgres", Arc::new(postgres), None),
    ];
    for (name, cp, wal) in &backends {
        let cached = agent(Arc::clone(cp), 64);
        let uncached = agent(Arc::clone(cp), 0);
        let mut group = c.benchmark_group(format!("thread_run_{name}"));
        for n in SIZES {
            let from = rt.block_on(template(&**cp, "template", n));
            group.bench_function(format!("cached_{n}"), |b| {
                b.iter_custom(|iters| runs(&rt, &cached, &**cp, *wal, &from, iters))
            });
            group.bench_function(format!("uncached_{n}"), |b| {
                b.iter_custom(|iters| runs(&rt, &uncached, &**cp, *wal, &from, iters))
            });
        }
        group.finish();
    }
    // The request body a provider serializes for the thread: its messages, as JSON.
    let mut group = c.benchmark_group("request_body");
    for n in SIZES {
        let messages: Vec<Message> = (0..n + 2).map(message).collect();
        group.bench_function(format!("serialize_{n}"), |b| {
            b.iter(|| serde_json::to_vec(&messages).unwrap())
        });
    }
    group.finish();
    // What returning the run's transcript cost when `RunResult::messages` was the caller's
    // own copy of the whole thread (the cache kept another): a reference figure.
    let mut group = c.benchmark_group("transcript");
    for n in SIZES {
        let messages: Vec<Message> = (0..n + 2).map(message).collect();
        group.bench_function(format!("copy_and_drop_{n}"), |b| {
            b.iter(|| drop(std::hint::black_box(messages.clone())))
        });
    }
    group.finish();
    c.final_summary();

    let us = |group: &str, id: &str| support::median_ns(group, id).map(|ns| ns / 1000.0);
    for n in SIZES {
        if let Some(body) = us("request_body", &format!("serialize_{n}")) {
            println!("FIGURE request_body/serialize_{n}: {body:.1} µs");
        }
        if let Some(copy) = us("transcript", &format!("copy_and_drop_{n}")) {
            println!("FIGURE transcript/copy_and_drop_{n}: {copy:.1} µs");
        }
    }
    for name in ["sqlite", "postgres"] {
        let group = format!("thread_run_{name}");
        for id in ["cached_10", "cached_5000", "uncached_10", "uncached_5000"] {
            if let Some(t) = us(&group, id) {
                println!("FIGURE {group}/{id}: {t:.1} µs per run");
            }
        }
        support::print_ratio(
            &group,
            "cached_5000",
            "cached_10",
            f64::INFINITY,
            "a run on a thread this agent ran last, 5,000 vs 10 messages (raw: request serialization included)",
        );
        support::print_ratio(
            &group,
            "uncached_5000",
            "uncached_10",
            f64::INFINITY,
            "every run loading the whole thread, 5,000 vs 10 messages",
        );
        support::print_ratio(
            &group,
            "uncached_5000",
            "cached_5000",
            f64::INFINITY,
            "what the cache saves at 5,000 messages",
        );
        // Net of serializing the request body (which the model does, like a provider):
        // what a cached run costs beyond the part of a real run that grows with the thread.
        if let (Some(a), Some(b), Some(sa), Some(sb)) = (
            us(&group, "cached_5000"),
            us(&group, "cached_10"),
            us("request_body", "serialize_5000"),
            us("request_body", "serialize_10"),
        ) {
            let ratio = (a - sa) / (b - sb);
            println!(
                "RATIO {group}: (cached_5000 - body_5000) / (cached_10 - body_10) = {ratio:.3}x (net of request serialization; target <= 1.3x: {})",
                if ratio <= 1.3 { "met" } else { "NOT met" }
            );
        }
    }
    drop(pg_server);
}
