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
//! Two refinements of the net figure. The model also times its own serialization inside the
//! measured runs, and the bench prints the ratio net of that (`in-run means`): a body
//! serialized next to a database's work costs more than the same body in a tight loop, so
//! the separate baseline can under-subtract. And on Postgres the cached runs are measured
//! again as `cached_{n}_settled`, with `VACUUM agent_messages` and `CHECKPOINT` in the
//! untimed part of each chunk (as SQLite's WAL is checkpointed there): the bench's own bulk
//! fork and delete of a 5,000-message thread leave the server background work (autovacuum,
//! writing WAL and dirty pages) that otherwise lands in the timed runs.
//!
//! Run: `cargo bench -p agentry --features testing,sqlite,postgres --bench thread_cost`.

mod support;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agentry::Message;
use agentry::agent::{Agent, AgentBuilder, NoTools};
use agentry::model::ChatRequest;
use agentry::output::TextOutput;
use agentry::persist::{
    CheckpointRef, CheckpointWrite, Checkpointer, PostgresCheckpointer, SqliteCheckpointer,
};
use agentry::testing::{FunctionModel, PostgresServer};
use criterion::Criterion;
use serde_json::json;
use support::thread::message;
use tokio::runtime::Runtime;

const CHUNK: u64 = 20;
const SIZES: [usize; 2] = [10, 5000];

type Bench = Agent<NoTools, TextOutput, (), ()>;

/// Time spent serializing request bodies inside runs, and the timed runs it was spent in.
#[derive(Default)]
struct InRun {
    /// Nanoseconds the model spent serializing, summed over every run (untimed ones too).
    body_ns: AtomicU64,
    /// Per benchmark id: (timed runs, their total time, the serialization inside them).
    timed: Mutex<HashMap<String, (u64, Duration, Duration)>>,
}

impl InRun {
    fn tally(&self, id: &str, runs: u64, elapsed: Duration, body: Duration) {
        let mut timed = self.timed.lock().unwrap();
        let tally = timed.entry(id.to_string()).or_default();
        *tally = (tally.0 + runs, tally.1 + elapsed, tally.2 + body);
    }

    fn body(&self) -> Duration {
        Duration::from_nanos(self.body_ns.load(Ordering::Relaxed))
    }

    /// Mean time of a timed run of `id` and the mean serialization inside it, in µs.
    fn means_us(&self, id: &str) -> Option<(f64, f64)> {
        let timed = self.timed.lock().unwrap();
        let &(runs, total, body) = timed.get(id)?;
        let per = |d: Duration| d.as_secs_f64() * 1e6 / runs as f64;
        (runs > 0).then(|| (per(total), per(body)))
    }
}

fn agent(cp: Arc<dyn Checkpointer>, cache: usize, in_run: Arc<InRun>) -> Bench {
    // The model serializes the request's messages, as a provider serializes the request
    // body: the one part of a real run that must grow with the thread. It times that
    // serialization, so the figure net of it comes from the very runs measured.
    let model = FunctionModel::new(move |request: &ChatRequest| {
        let start = Instant::now();
        std::hint::black_box(serde_json::to_vec(&*request.messages).unwrap());
        let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        in_run.body_ns.fetch_add(ns, Ordering::Relaxed);
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
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// A backend: its name, its checkpointer, how each chunk settles, and how the extra
/// `_settled` runs settle (none: not measured).
type Backend<'a> = (
    &'a str,
    Arc<dyn Checkpointer>,
    Settle<'a>,
    Option<Settle<'a>>,
);

/// What the untimed part does after a fork's first run, so that the timed runs do not pay for
/// the bench's own bulk write of the fork (and delete of the previous one).
#[derive(Clone, Copy)]
enum Settle<'a> {
    /// Nothing.
    No,
    /// SQLite: checkpoint the write-ahead log (move the fork's copy out of it).
    SqliteWal(&'a sqlx::SqlitePool),
    /// Postgres: `VACUUM` the messages (the previous fork's 5,000 deleted rows, which
    /// autovacuum would otherwise clean up during timed runs), then `CHECKPOINT` (write the
    /// fork's WAL and dirty pages now rather than in the background during timed runs).
    Postgres(&'a sqlx::PgPool),
}

impl Settle<'_> {
    async fn run(self) {
        match self {
            Settle::No => {}
            Settle::SqliteWal(pool) => {
                sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
                    .execute(pool)
                    .await
                    .unwrap();
            }
            Settle::Postgres(pool) => {
                for statement in ["VACUUM agent_messages", "CHECKPOINT"] {
                    sqlx::raw_sql(statement).execute(pool).await.unwrap();
                }
            }
        }
    }
}

/// Time of `iters` runs on threads forked from `from`, each fork's first run untimed, then
/// `settle`.
#[allow(clippy::too_many_arguments)]
fn runs(
    rt: &Runtime,
    agent: &Bench,
    in_run: &InRun,
    id: &str,
    cp: &dyn Checkpointer,
    settle: Settle<'_>,
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
            settle.run().await;
            let chunk = CHUNK.min(iters - done);
            let body_before = in_run.body();
            let start = Instant::now();
            for _ in 0..chunk {
                let run = agent
                    .thread(thread.as_str())
                    .run("And tomorrow?", ())
                    .await
                    .unwrap();
                std::hint::black_box(run);
            }
            let elapsed = start.elapsed();
            let body = in_run.body() - body_before;
            in_run.tally(id, chunk, elapsed, body);
            total += elapsed;
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

    let in_run = Arc::new(InRun::default());
    let sqlite_pool = sqlite.pool().clone();
    let pg_pool = postgres.pool().clone();
    // Each backend's runs as before, and on Postgres the cached runs again with the bench's
    // bulk fork and delete settled before timing (`cached_{n}_settled`).
    let backends: [Backend; 2] = [
        (
            "sqlite",
            Arc::new(sqlite),
            Settle::SqliteWal(&sqlite_pool),
            None,
        ),
        (
            "postgres",
            Arc::new(postgres),
            Settle::No,
            Some(Settle::Postgres(&pg_pool)),
        ),
    ];
    for (name, cp, settle, settled) in &backends {
        let cached = agent(Arc::clone(cp), 64, Arc::clone(&in_run));
        let uncached = agent(Arc::clone(cp), 0, Arc::clone(&in_run));
        let mut group = c.benchmark_group(format!("thread_run_{name}"));
        for n in SIZES {
            let from = rt.block_on(template(&**cp, "template", n));
            group.bench_function(format!("cached_{n}"), |b| {
                let id = format!("{name}/cached_{n}");
                b.iter_custom(|iters| {
                    runs(&rt, &cached, &in_run, &id, &**cp, *settle, &from, iters)
                })
            });
            if let Some(settled) = settled {
                group.bench_function(format!("cached_{n}_settled"), |b| {
                    let id = format!("{name}/cached_{n}_settled");
                    b.iter_custom(|iters| {
                        runs(&rt, &cached, &in_run, &id, &**cp, *settled, &from, iters)
                    })
                });
            }
            group.bench_function(format!("uncached_{n}"), |b| {
                let id = format!("{name}/uncached_{n}");
                b.iter_custom(|iters| {
                    runs(&rt, &uncached, &in_run, &id, &**cp, *settle, &from, iters)
                })
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
        for id in [
            "cached_10",
            "cached_5000",
            "cached_10_settled",
            "cached_5000_settled",
            "uncached_10",
            "uncached_5000",
        ] {
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
        for suffix in ["", "_settled"] {
            if let (Some(a), Some(b), Some(sa), Some(sb)) = (
                us(&group, &format!("cached_5000{suffix}")),
                us(&group, &format!("cached_10{suffix}")),
                us("request_body", "serialize_5000"),
                us("request_body", "serialize_10"),
            ) {
                let ratio = (a - sa) / (b - sb);
                println!(
                    "RATIO {group}: (cached_5000{suffix} - body_5000) / (cached_10{suffix} - body_10) = {ratio:.3}x (net of request serialization; target <= 1.3x: {})",
                    if ratio <= 1.3 { "met" } else { "NOT met" }
                );
            }
        }
        // The same, net of the serialization timed inside the measured runs themselves
        // (means over every timed run, warm-up included): the body a run serializes next to
        // a database's work costs more than the same body in a tight loop.
        for suffix in ["", "_settled"] {
            let (small, large) = (format!("cached_10{suffix}"), format!("cached_5000{suffix}"));
            for id in [&small, &large] {
                if let Some((run, body)) = in_run.means_us(&format!("{name}/{id}")) {
                    println!(
                        "FIGURE {group}/{id}: mean {run:.1} µs per run, of which {body:.1} µs serializing the request body"
                    );
                }
            }
            if let (Some((a, sa)), Some((b, sb))) = (
                in_run.means_us(&format!("{name}/{large}")),
                in_run.means_us(&format!("{name}/{small}")),
            ) {
                let ratio = (a - sa) / (b - sb);
                println!(
                    "RATIO {group}: in-run means, ({large} - its body) / ({small} - its body) = {ratio:.3}x (target <= 1.3x: {})",
                    if ratio <= 1.3 { "met" } else { "NOT met" }
                );
            }
        }
    }
    drop(pg_server);
}
