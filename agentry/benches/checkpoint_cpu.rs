//! CPU time and instructions of one SQLite checkpoint (append one step) against the same rows
//! written by hand, in the same run:
//!
//! - `ours`: [`SqliteCheckpointer::put`] from async code (`CheckpointWrite::next` with one new
//!   message, the state, usage and counters), the path a run takes;
//! - `rusqlite`: by hand with rusqlite on the calling thread: `BEGIN IMMEDIATE`, the thread's
//!   row moved (`UPDATE … RETURNING`), the message row, the checkpoint row, `COMMIT`,
//!   statements prepared once (`prepare_cached`), the message and body serialized with
//!   serde_json: SQLite's own cost plus the least glue;
//! - `sqlx`: by hand with sqlx: the same statements in a `pool.begin()` transaction (each
//!   statement a round trip to the connection's worker thread).
//!
//! All three write to the same database file (WAL, `synchronous = NORMAL`), each on its own
//! thread of the schema. CPU time is the process's (getrusage, user + system, every thread:
//! the blocking pool's and sqlx's workers included); rounds of `STEPS` steps each variant,
//! in an order that rotates every round, and the median of per-round ratios.
//!
//! Run: `cargo bench -p agentry --features testing,sqlite --bench checkpoint_cpu`
//! (`-- --instructions` for instructions per step under callgrind: each variant is run in a
//! child process under `valgrind --tool=callgrind` for 200 and for 1,200 steps, and the
//! difference divided by 1,000, which cancels start-up and the opening of the file).

#[path = "support/callgrind.rs"]
mod callgrind;

use std::path::Path;
use std::time::Duration;

use agentry::persist::{CheckpointWrite, Checkpointer, SqliteCheckpointer};
use agentry::{Message, ToolCall, Usage};
use serde_json::{Value, json};
use tokio::runtime::Runtime;

const ROUNDS: usize = 15;
const STEPS: u64 = 200;
const VARIANTS: [&str; 3] = ["ours", "rusqlite", "sqlx"];

fn message() -> Message {
    Message::assistant_tool_calls(vec![ToolCall::new(
        "call_0",
        "get_weather",
        r#"{"city":"Paris","units":"celsius"}"#,
    )])
}

fn state() -> Value {
    json!({"hotels": ["Le Meurice"], "budget_eur": 1200, "days": [{"day": 1, "plan": "Louvre"}]})
}

fn counters() -> Value {
    json!({"turns": 3, "output_retries": 0, "tool_calls": 7})
}

fn usage() -> Usage {
    Usage {
        input_tokens: 1200,
        output_tokens: 300,
        requests: 3,
        ..Usage::default()
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The thread's row moves (only from the step the writer knows), returning its message count.
const NEXT: &str = "UPDATE agent_threads
     SET latest_step = ?2, message_count = message_count + ?3, updated_at_ms = ?4
     WHERE thread_id = ?1 AND latest_step = ?5 RETURNING message_count";
const MESSAGES: &str = "INSERT INTO agent_messages (thread_id, seq, body)
     SELECT ?1, ?2 + j.key, j.value FROM json_each(?3) j";
const CHECKPOINT: &str = "INSERT INTO agent_checkpoints (thread_id, step, parent_thread,
         parent_step, format_version, message_count, body, created_at_ms)
     VALUES (?1, ?2, ?1, ?3, ?4, ?5, ?6, ?7)";

/// One variant's writer, on its own thread of the schema, at `step`.
struct Writer {
    variant: &'static str,
    thread: String,
    step: u64,
}

struct Bench {
    rt: Runtime,
    cp: SqliteCheckpointer,
    by_hand: rusqlite::Connection,
    state: Value,
    counters: Value,
    msg: [Message; 1],
}

impl Bench {
    fn open(path: &Path) -> Bench {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let cp = rt.block_on(SqliteCheckpointer::open(path)).unwrap();
        let by_hand = rusqlite::Connection::open(path).unwrap();
        by_hand
            .pragma_update(None, "synchronous", "NORMAL")
            .unwrap();
        by_hand.busy_timeout(Duration::from_secs(10)).unwrap();
        Bench {
            rt,
            cp,
            by_hand,
            state: state(),
            counters: counters(),
            msg: [message()],
        }
    }

    fn writer(&self, variant: &'static str) -> Writer {
        let thread = format!("{variant}-{}", std::process::id());
        let first = [Message::user("Plan three days in Paris.")];
        let step = self
            .rt
            .block_on(
                self.cp
                    .put(CheckpointWrite::first(&thread, &first, &self.state)),
            )
            .unwrap()
            .step;
        Writer {
            variant,
            thread,
            step,
        }
    }

    fn steps(&self, w: &mut Writer, n: u64) {
        match w.variant {
            "ours" => self.rt.block_on(async {
                for _ in 0..n {
                    let write = CheckpointWrite::next(&w.thread, w.step, &self.msg, &self.state)
                        .usage(usage())
                        .counters(&self.counters);
                    w.step = self.cp.put(write).await.unwrap().step;
                }
            }),
            "rusqlite" => {
                for _ in 0..n {
                    w.step = self.rusqlite_step(&w.thread, w.step);
                }
            }
            _ => self.rt.block_on(async {
                for _ in 0..n {
                    w.step = self.sqlx_step(&w.thread, w.step).await;
                }
            }),
        }
    }

    fn body(&self) -> String {
        serde_json::to_string(&json!({
            "state": self.state, "usage": usage(), "counters": self.counters
        }))
        .unwrap()
    }

    fn rusqlite_step(&self, thread: &str, after: u64) -> u64 {
        use rusqlite::{TransactionBehavior, params};
        let step = after as i64 + 1;
        let now = now_ms();
        let messages = serde_json::to_string(&self.msg).unwrap();
        let body = self.body();
        let tx =
            rusqlite::Transaction::new_unchecked(&self.by_hand, TransactionBehavior::Immediate)
                .unwrap();
        let count: i64 = tx
            .prepare_cached(NEXT)
            .unwrap()
            .query_row(params![thread, step, 1i64, now, after as i64], |r| r.get(0))
            .unwrap();
        tx.prepare_cached(MESSAGES)
            .unwrap()
            .execute(params![thread, count - 1, messages])
            .unwrap();
        tx.prepare_cached(CHECKPOINT)
            .unwrap()
            .execute(params![thread, step, after as i64, 2i64, count, body, now])
            .unwrap();
        tx.commit().unwrap();
        step as u64
    }

    async fn sqlx_step(&self, thread: &str, after: u64) -> u64 {
        let step = after as i64 + 1;
        let now = now_ms();
        let messages = serde_json::to_string(&self.msg).unwrap();
        let body = self.body();
        let mut tx = self.cp.pool().begin().await.unwrap();
        let count: i64 = sqlx::query_scalar(NEXT)
            .bind(thread)
            .bind(step)
            .bind(1i64)
            .bind(now)
            .bind(after as i64)
            .fetch_one(&mut *tx)
            .await
            .unwrap();
        sqlx::query(MESSAGES)
            .bind(thread)
            .bind(count - 1)
            .bind(&messages)
            .execute(&mut *tx)
            .await
            .unwrap();
        sqlx::query(CHECKPOINT)
            .bind(thread)
            .bind(step)
            .bind(after as i64)
            .bind(2i64)
            .bind(count)
            .bind(&body)
            .bind(now)
            .execute(&mut *tx)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        step as u64
    }
}

fn cpu_now() -> Duration {
    // SAFETY: getrusage writes into the zeroed struct we own.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn cpu_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let bench = Bench::open(&dir.path().join("bench.db"));
    let mut writers: Vec<Writer> = VARIANTS.iter().map(|v| bench.writer(v)).collect();
    for w in &mut writers {
        bench.steps(w, STEPS); // warm-up: statements prepared, pages cached
    }
    let mut per_step: Vec<Vec<f64>> = vec![Vec::new(); VARIANTS.len()];
    for round in 0..ROUNDS {
        for k in 0..VARIANTS.len() {
            let i = (k + round) % VARIANTS.len();
            let start = cpu_now();
            bench.steps(&mut writers[i], STEPS);
            per_step[i].push((cpu_now() - start).as_secs_f64() * 1e6 / STEPS as f64);
        }
    }
    println!(
        "checkpoint_cpu_sqlite: CPU µs per step (process, every thread), median of {ROUNDS} rounds of {STEPS} steps"
    );
    for (i, name) in VARIANTS.iter().enumerate() {
        println!("  {name:9} {:7.1} µs", median(per_step[i].clone()));
    }
    for (i, name) in VARIANTS.iter().enumerate().skip(1) {
        let ratios = per_step[0]
            .iter()
            .zip(&per_step[i])
            .map(|(a, b)| a / b)
            .collect();
        println!(
            "RATIO checkpoint_cpu_sqlite: ours / {name} by hand = {:.2}x (median of per-round ratios)",
            median(ratios)
        );
    }
    let ours = median(per_step[0].clone());
    println!(
        "FIGURE checkpoint_cpu_sqlite/ours: {ours:.1} µs CPU per checkpoint (target <= 50 µs: {})",
        if ours <= 50.0 { "met" } else { "NOT met" }
    );
}

/// In a child process: `steps` steps of one variant, nothing else.
fn only(variant: &str, steps: u64) {
    let dir = tempfile::tempdir().unwrap();
    let bench = Bench::open(&dir.path().join("bench.db"));
    let variant = VARIANTS.into_iter().find(|v| *v == variant).unwrap();
    let mut w = bench.writer(variant);
    bench.steps(&mut w, steps);
}

/// Instructions of a child running `steps` steps of `variant` under callgrind.
fn instructions(variant: &str, steps: u64) -> u64 {
    callgrind::instructions_of_self(&["--only", variant, &steps.to_string()])
}

fn instruction_counts() {
    println!(
        "checkpoint_instructions_sqlite: instructions per step, (1,200 steps - 200 steps) / 1,000"
    );
    let per_step: Vec<f64> = VARIANTS
        .iter()
        .map(|v| {
            let n = (instructions(v, 1200) as f64 - instructions(v, 200) as f64) / 1000.0;
            println!("  {v:9} {n:9.0}");
            n
        })
        .collect();
    for (i, name) in VARIANTS.iter().enumerate().skip(1) {
        println!(
            "RATIO checkpoint_instructions_sqlite: ours / {name} by hand = {:.2}x",
            per_step[0] / per_step[i]
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().position(|a| a == "--only") {
        Some(i) => only(&args[i + 1], args[i + 2].parse().unwrap()),
        None if args.iter().any(|a| a == "--instructions") => instruction_counts(),
        None => cpu_rounds(),
    }
}
