//! Checkpoint cost per step on SQLite (file, WAL, `synchronous = NORMAL`) and Postgres (a
//! local server over loopback, `fsync` on), with 10 and with 1,000
//! messages already in the thread, against a hand-written baseline in the same run: one raw
//! sqlx `INSERT` of the same bytes (the floor of one durable write through the driver). Also
//! how many threads per second `latest()` loads from SQLite.
//!
//! Postgres runs twice: `postgres` with `synchronous_commit = off` (a commit does not wait for
//! its WAL flush: an OS crash may lose the last commits but never corrupts — the same contract
//! as SQLite's `synchronous = NORMAL`), and `postgres_sync` with Postgres' default
//! `synchronous_commit = on`, where every commit waits for one `fdatasync` of the disk.
//!
//! A step appends one message and writes the state, usage and counters. Each measured chunk of
//! 50 steps starts from a fresh fork of a template thread (untimed), so the "10 messages" case
//! stays at 10–60 messages.
//!
//! Run: `cargo bench -p agentry --features testing,sqlite,postgres --bench checkpoint`.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use agentry::persist::{
    CheckpointRef, CheckpointWrite, Checkpointer, PostgresCheckpointer, SqliteCheckpointer,
};
use agentry::testing::PostgresServer;
use agentry::{Message, ToolCall, Usage};
use criterion::Criterion;
use serde_json::{Value, json};
use tokio::runtime::Runtime;

const CHUNK: u64 = 50;

fn message(i: usize) -> Message {
    if i.is_multiple_of(2) {
        Message::assistant_tool_calls(vec![ToolCall::new(
            format!("call_{i}"),
            "get_weather",
            r#"{"city":"Paris","units":"celsius"}"#,
        )])
    } else {
        Message::tool_result(
            format!("call_{}", i - 1),
            "get_weather",
            "Paris: 18°C, clear skies, light wind from the west at 10 km/h, humidity 60%.",
        )
    }
}

fn state() -> Value {
    json!({"hotels": ["Le Meurice"], "budget_eur": 1200, "days": [{"day": 1, "plan": "Louvre"}]})
}

/// Writes a template thread with `n` messages.
async fn template(cp: &dyn Checkpointer, name: &str, n: usize) -> CheckpointRef {
    let thread = format!("{name}-{n}");
    let messages: Vec<Message> = (0..n).map(message).collect();
    let meta = cp
        .put(CheckpointWrite::first(&thread, &messages, &state()))
        .await
        .unwrap();
    CheckpointRef::new(thread, meta.step)
}

/// Time of `iters` checkpoint writes on threads forked from `from`.
fn put_steps(rt: &Runtime, cp: &dyn Checkpointer, from: &CheckpointRef, iters: u64) -> Duration {
    let state = state();
    let counters = json!({"turns": 3, "output_retries": 0, "tool_calls": 7});
    let usage = Usage {
        input_tokens: 1200,
        output_tokens: 300,
        requests: 3,
        ..Usage::default()
    };
    let msg = [message(0)];
    let mut total = Duration::ZERO;
    let mut done = 0;
    let mut k = 0u64;
    rt.block_on(async {
        while done < iters {
            k += 1;
            let thread = format!("{}-run-{k}-{}", from.thread_id, rand_suffix());
            let mut step = cp.fork(from, &thread).await.unwrap().step;
            let chunk = CHUNK.min(iters - done);
            let start = Instant::now();
            for _ in 0..chunk {
                step = cp
                    .put(
                        CheckpointWrite::next(&thread, step, &msg, &state)
                            .usage(usage)
                            .counters(&counters),
                    )
                    .await
                    .unwrap()
                    .step;
            }
            total += start.elapsed();
            done += chunk;
            cp.delete_thread(&thread).await.unwrap();
        }
    });
    total
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
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
    let pg_sync_server = PostgresServer::start_durable().unwrap_or_else(|e| panic!("{e}"));
    let postgres_sync = rt
        .block_on(PostgresCheckpointer::connect(&pg_sync_server.url()))
        .unwrap();
    let raw_body = serde_json::to_string(&json!({
        "message": message(0),
        "state": state(),
        "usage": Usage::default(),
        "counters": {"turns": 3}
    }))
    .unwrap();
    rt.block_on(async {
        sqlx::query("CREATE TABLE bench_raw (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            .execute(sqlite.pool())
            .await
            .unwrap();
        for pg in [&postgres, &postgres_sync] {
            sqlx::query("CREATE TABLE bench_raw (id BIGINT PRIMARY KEY, body TEXT NOT NULL)")
                .execute(pg.pool())
                .await
                .unwrap();
        }
    });

    let mut c = Criterion::default()
        .configure_from_args()
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));

    let backends: [(&str, Arc<dyn Checkpointer>); 3] = [
        ("sqlite", Arc::new(sqlite.clone())),
        ("postgres", Arc::new(postgres.clone())),
        ("postgres_sync", Arc::new(postgres_sync.clone())),
    ];
    for (name, cp) in &backends {
        let group_name = format!("checkpoint_put_{name}");
        let mut group = c.benchmark_group(&group_name);
        for n in [10usize, 1000] {
            let from = rt.block_on(template(&**cp, "template", n));
            group.bench_function(format!("messages_{n}"), |b| {
                b.iter_custom(|iters| put_steps(&rt, &**cp, &from, iters))
            });
        }
        let mut id = 0i64;
        group.bench_function("baseline_raw_insert", |b| {
            b.iter(|| {
                id += 1;
                rt.block_on(async {
                    match *name {
                        "sqlite" => q_sqlite(&sqlite, id, &raw_body).await,
                        "postgres" => q_pg(&postgres, id, &raw_body).await,
                        _ => q_pg(&postgres_sync, id, &raw_body).await,
                    }
                })
            })
        });
        // The floor of any statement through the driver: one trivial query's round trip.
        group.bench_function("floor_select_1", |b| {
            b.iter(|| {
                rt.block_on(async {
                    let one: i64 = match *name {
                        "sqlite" => {
                            sqlx::query_scalar("SELECT 1")
                                .fetch_one(sqlite.pool())
                                .await
                        }
                        "postgres" => {
                            sqlx::query_scalar("SELECT 1::bigint")
                                .fetch_one(postgres.pool())
                                .await
                        }
                        _ => {
                            sqlx::query_scalar("SELECT 1::bigint")
                                .fetch_one(postgres_sync.pool())
                                .await
                        }
                    }
                    .unwrap();
                    one
                })
            })
        });
        group.finish();
    }

    let mut group = c.benchmark_group("thread_load_sqlite");
    for n in [10usize, 1000] {
        let from = rt.block_on(template(&sqlite, "load", n));
        group.bench_function(format!("latest_{n}_messages"), |b| {
            b.iter(|| {
                rt.block_on(sqlite.latest(&from.thread_id))
                    .unwrap()
                    .unwrap()
            })
        });
    }
    group.finish();
    c.final_summary();

    for name in ["sqlite", "postgres", "postgres_sync"] {
        let group = format!("checkpoint_put_{name}");
        let target_us = if name == "sqlite" { 50.0 } else { 1000.0 };
        for n in ["messages_10", "messages_1000"] {
            if let Some(ns) = support::median_ns(&group, n) {
                let us = ns / 1000.0;
                println!(
                    "FIGURE {group}/{n}: {us:.1} µs per checkpoint (target <= {target_us} µs: {})",
                    if us <= target_us { "met" } else { "NOT met" }
                );
            }
        }
        support::print_ratio(
            &group,
            "messages_1000",
            "messages_10",
            2.0,
            "flat cost as the thread grows",
        );
        support::print_ratio(
            &group,
            "messages_10",
            "baseline_raw_insert",
            f64::INFINITY,
            "one checkpoint vs one raw INSERT",
        );
        support::print_ratio(
            &group,
            "baseline_raw_insert",
            "floor_select_1",
            f64::INFINITY,
            "one raw INSERT vs the driver's round trip",
        );
    }
    for n in ["latest_10_messages", "latest_1000_messages"] {
        if let Some(ns) = support::median_ns("thread_load_sqlite", n) {
            println!(
                "FIGURE thread_load_sqlite/{n}: {:.0} threads loaded per second ({:.1} µs each)",
                1e9 / ns,
                ns / 1000.0
            );
        }
    }
    drop(pg_server);
    drop(pg_sync_server);
}

async fn q_sqlite(cp: &SqliteCheckpointer, id: i64, body: &str) {
    sqlx::query("INSERT INTO bench_raw (id, body) VALUES ($1, $2)")
        .bind(id)
        .bind(body)
        .execute(cp.pool())
        .await
        .unwrap();
}

async fn q_pg(cp: &PostgresCheckpointer, id: i64, body: &str) {
    sqlx::query("INSERT INTO bench_raw (id, body) VALUES ($1, $2)")
        .bind(id)
        .bind(body)
        .execute(cp.pool())
        .await
        .unwrap();
}
