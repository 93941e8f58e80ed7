//! What running in a thread costs: the same agent run (model → one tool call → model) with
//! and without a checkpointer.
//!
//! A run in a thread loads the thread's newest checkpoint (its messages and typed state),
//! then saves four checkpoints: the input, the answer that calls the tool, the tool's result,
//! the final answer. Each iteration runs one new turn on a thread that already holds a
//! 10-message conversation (a fork of a template thread, made outside the timing), which is
//! also what "threads resumed per second" counts. The baseline is the same run without a
//! checkpointer, given the same 10 messages as history by hand.
//!
//! - `in_process/*`: the model answers instantly in-process (`FunctionModel`), so the ratio
//!   is against the loop's own cost — the worst case for the checkpointer's share.
//! - `http/*`: the model is `MockServer` on loopback through the real OpenAI client, like a
//!   local model server; the ratio is closer to what a run against a provider sees (and a
//!   real provider's latency makes it smaller still).
//!
//! Backends: `memory` (`InMemoryCheckpointer`) and `sqlite` (`SqliteCheckpointer`, a file in
//! a temporary directory, WAL, `synchronous = NORMAL`); `sqlite_exit` is the SQLite thread
//! with `Durability::Exit`, one checkpoint when the run ends instead of four.
//!
//! After each criterion group, a table gives CPU time per run (getrusage: every thread of the
//! process, including the blocking pool's WAL checkpoints) beside wall time, in interleaved
//! rounds; a second one the same for conversations continued turn after turn (`continued`),
//! where a thread comes from the agent's cache.
//!
//! Run: `cargo bench --bench thread_run`

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use agentry::agent::{Durability, Input, IntoSharedModel};
use agentry::model::ChatRequest;
use agentry::persist::{CheckpointWrite, Checkpointer, InMemoryCheckpointer, SqliteCheckpointer};
use agentry::prelude::*;
use agentry::testing::{FunctionModel, MockResponse, MockServer, RecordedRequest};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

#[path = "shared/process_cpu.rs"]
mod process_cpu;
use process_cpu::cpu_now;

#[path = "thread_run/continued.rs"]
mod continued;

#[path = "shared/adder.rs"]
mod adder;
use adder::{Adder, AdderAgent};
#[path = "shared/history.rs"]
mod history;
use history::history;

/// Calls `add` when the last message is the user's, answers once the result is in.
fn function_model() -> FunctionModel {
    FunctionModel::new(|req: &ChatRequest| match req.messages.last() {
        Some(Message::Tool(result)) => FunctionModel::text(format!(
            "The sum is {}.",
            Message::Tool(result.clone()).text()
        )),
        _ => FunctionModel::tool_call("add", serde_json::json!({ "a": 2, "b": 3 })),
    })
}

fn mock_model(request: &RecordedRequest) -> MockResponse {
    let last = request.body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map(|m| m["role"].clone());
    if last.as_ref().and_then(|r| r.as_str()) == Some("tool") {
        MockResponse::text("The sum is 5.")
    } else {
        MockResponse::tool_calls(vec![ToolCall::new("call_1", "add", r#"{"a":2,"b":3}"#)])
    }
}

/// What a program without a checkpointer keeps of a run to continue its conversation: the
/// run's messages without the system prompt.
fn kept_history(messages: &[Message]) -> Vec<Message> {
    messages
        .iter()
        .filter(|m| !matches!(m, Message::System { .. }))
        .cloned()
        .collect()
}

struct Setup {
    plain: AdderAgent,
    memory: AdderAgent,
    sqlite: AdderAgent,
    sqlite_exit: AdderAgent,
    sqlite_checkpointer: Arc<dyn Checkpointer>,
}

fn agents(
    rt: &tokio::runtime::Runtime,
    model: impl Fn() -> agentry::model::SharedModel,
    dir: &std::path::Path,
    name: &str,
) -> Setup {
    let sqlite: Arc<dyn Checkpointer> = Arc::new(
        rt.block_on(SqliteCheckpointer::open(dir.join(format!("{name}.db"))))
            .unwrap(),
    );
    let memory: Arc<dyn Checkpointer> = Arc::new(InMemoryCheckpointer::default());
    // The template thread: 10 messages, idle.
    for cp in [&memory, &sqlite] {
        let state = serde_json::Value::Null;
        let history = history();
        let first = CheckpointWrite::first("template", &history, &state);
        rt.block_on(cp.put(first)).unwrap();
    }
    let build = |cp: Option<Arc<dyn Checkpointer>>, durability| {
        let builder = Adder::builder(model()).durability(durability);
        match cp {
            Some(cp) => builder.shared_checkpointer(cp).build(),
            None => builder.build(),
        }
    };
    let step = Durability::Step;
    Setup {
        plain: build(None, step),
        memory: build(Some(memory), step),
        sqlite: build(Some(Arc::clone(&sqlite)), step),
        sqlite_exit: build(Some(Arc::clone(&sqlite)), Durability::Exit),
        sqlite_checkpointer: sqlite,
    }
}

static NEXT: AtomicU64 = AtomicU64::new(0);

/// A fresh fork of the template thread (not timed).
fn fork(rt: &tokio::runtime::Runtime, agent: &AdderAgent) -> String {
    let id = format!("t{}", NEXT.fetch_add(1, Ordering::Relaxed));
    rt.block_on(agent.thread("template").fork(1, id.clone()))
        .unwrap();
    id
}

fn group(c: &mut Criterion, rt: &tokio::runtime::Runtime, name: &str, setup: &Setup) {
    // Every variant gives the same answer and the thread variants save the run.
    let check = rt
        .block_on(
            setup
                .plain
                .run(Input::with_history(history(), "2 + 3?"), ()),
        )
        .unwrap();
    assert_eq!(check.output, "The sum is 5.");
    for (agent, writes) in [
        (&setup.memory, 4),
        (&setup.sqlite, 4),
        (&setup.sqlite_exit, 1),
    ] {
        let id = fork(rt, agent);
        let run = rt
            .block_on(agent.thread(id.clone()).run("2 + 3?", ()))
            .unwrap();
        assert_eq!(run.output, "The sum is 5.");
        assert_eq!(run.messages, check.messages);
        let saved = rt.block_on(agent.thread(id).history(10)).unwrap();
        assert_eq!(
            saved.len(),
            1 + writes,
            "the fork's checkpoint and the run's"
        );
    }

    let mut g = c.benchmark_group(name);
    g.bench_function("no_checkpointer", |b| {
        b.iter(|| {
            rt.block_on(async {
                let input = Input::with_history(history(), black_box("2 + 3?"));
                black_box(setup.plain.run(input, ()).await.unwrap())
            })
        })
    });
    let threads = [
        ("memory", &setup.memory),
        ("sqlite", &setup.sqlite),
        ("sqlite_exit", &setup.sqlite_exit),
    ];
    for (backend, agent) in threads {
        g.bench_function(format!("thread_{backend}"), |b| {
            b.iter_batched(
                || {
                    // The baseline builds its history each time; so does this side's setup.
                    let _ = history();
                    fork(rt, agent)
                },
                |id| {
                    rt.block_on(async {
                        black_box(agent.thread(id).run(black_box("2 + 3?"), ()).await.unwrap())
                    })
                },
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
    cpu_table(rt, name, setup);
    continued::continued_table(rt, name, setup);
}

/// The sides of the CPU tables, in their order in [`Setup`].
const SIDES: [&str; 4] = [
    "no checkpointer",
    "thread, memory",
    "thread, sqlite",
    "sqlite, at exit",
];

/// CPU time per run, in interleaved rounds: on a shared, loaded machine wall time mostly
/// measures waiting for a core (a statement on a busy file waits on the blocking pool), CPU time
/// what the work costs.
fn cpu_table(rt: &tokio::runtime::Runtime, name: &str, setup: &Setup) {
    const RUNS: usize = 200;
    const ROUNDS: usize = 5;
    let mut cpu = [std::time::Duration::ZERO; 4];
    let mut wall = [std::time::Duration::ZERO; 4];
    for _ in 0..ROUNDS {
        let sides = [
            &setup.plain,
            &setup.memory,
            &setup.sqlite,
            &setup.sqlite_exit,
        ];
        for (i, agent) in sides.into_iter().enumerate() {
            let ids: Vec<String> = (0..RUNS)
                .map(|_| {
                    if i == 0 {
                        String::new()
                    } else {
                        fork(rt, agent)
                    }
                })
                .collect();
            let (c0, w0) = (cpu_now(), std::time::Instant::now());
            for id in ids {
                rt.block_on(async {
                    if i == 0 {
                        let input = Input::with_history(history(), "2 + 3?");
                        black_box(agent.run(input, ()).await.unwrap());
                    } else {
                        black_box(agent.thread(id).run("2 + 3?", ()).await.unwrap());
                    }
                });
            }
            cpu[i] += cpu_now() - c0;
            wall[i] += w0.elapsed();
        }
    }
    let per = |d: std::time::Duration| d.as_secs_f64() * 1e6 / (RUNS * ROUNDS) as f64;
    println!("\n{name}: per run, {ROUNDS} interleaved rounds of {RUNS} runs");
    for (i, label) in SIDES.into_iter().enumerate() {
        println!(
            "  {label:<16} CPU {:>8.1} µs ({:.2}x)   wall {:>8.1} µs ({:.2}x)",
            per(cpu[i]),
            per(cpu[i]) / per(cpu[0]),
            per(wall[i]),
            per(wall[i]) / per(wall[0]),
        );
    }
    println!(
        "  threads resumed per second (SQLite, wall): {:.0}",
        1e6 / per(wall[2])
    );

    // The SQLite checkpointer alone: one `put` appending one message, and one `latest` of a
    // 10-message thread — a run in a thread does four puts and one latest.
    let cp = &setup.sqlite_checkpointer;
    let id = format!("puts-{name}");
    let state = serde_json::json!({});
    let message = [Message::assistant("the sum is 5")];
    let first = rt
        .block_on(cp.put(CheckpointWrite::first(&id, &message, &state)))
        .unwrap();
    let mut step = first.step;
    let (c0, w0) = (cpu_now(), std::time::Instant::now());
    for _ in 0..RUNS {
        step = rt
            .block_on(cp.put(CheckpointWrite::next(&id, step, &message, &state)))
            .unwrap()
            .step;
    }
    let (put_cpu, put_wall) = (cpu_now() - c0, w0.elapsed());
    let (c0, w0) = (cpu_now(), std::time::Instant::now());
    for _ in 0..RUNS {
        black_box(rt.block_on(cp.latest("template")).unwrap());
    }
    let (get_cpu, get_wall) = (cpu_now() - c0, w0.elapsed());
    let one = |d: std::time::Duration| d.as_secs_f64() * 1e6 / RUNS as f64;
    println!(
        "  sqlite put: CPU {:.1} µs, wall {:.1} µs; latest (10 messages): CPU {:.1} µs, wall {:.1} µs",
        one(put_cpu),
        one(put_wall),
        one(get_cpu),
        one(get_wall)
    );
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile_dir();
    if let Ok(side) = std::env::var("THREAD_ONLY") {
        profile_one(&rt, dir.path(), &side);
        return;
    }
    let in_process = agents(
        &rt,
        || function_model().into_shared_model(),
        dir.path(),
        "in_process",
    );
    group(c, &rt, "thread_run/in_process", &in_process);

    let server = rt.block_on(MockServer::with_handler(mock_model));
    let http = agents(
        &rt,
        || server.openai_model("mock").into_shared_model(),
        dir.path(),
        "http",
    );
    group(c, &rt, "thread_run/http", &http);
}

/// `THREAD_ONLY=plain|memory|sqlite|sqlite_exit THREAD_RUNS=N <bench binary>`: forks N threads, prints
/// `forked`, then makes N runs of one side over HTTP in [`profile_runs`], for a profiler:
/// `perf record -p` once `forked` is printed (`THREAD_DELAY_MS` sleeps between the forks and
/// the runs, to leave it time to attach), or callgrind counting the client's thread inside
/// the runs (`valgrind --tool=callgrind --toggle-collect='thread_run::profile_runs'`,
/// differenced over two values of N). `THREAD_TURNS=K` runs each thread K times, round-robin,
/// as the continued table does (the later turns from the agent's cache); differenced over two
/// values of K, that is the cost of a continued turn.
fn profile_one(rt: &tokio::runtime::Runtime, dir: &std::path::Path, side: &str) {
    let runs: usize = std::env::var("THREAD_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    let server = rt.block_on(MockServer::with_handler(mock_model));
    let setup = agents(
        rt,
        || server.openai_model("mock").into_shared_model(),
        dir,
        "profile",
    );
    let agent = match side {
        "plain" => &setup.plain,
        "memory" => &setup.memory,
        "sqlite" => &setup.sqlite,
        "sqlite_exit" => &setup.sqlite_exit,
        other => panic!("THREAD_ONLY={other}: use plain, memory, sqlite or sqlite_exit"),
    };
    let ids: Vec<String> = (0..runs)
        .map(|_| {
            if side == "plain" {
                String::new()
            } else {
                fork(rt, agent)
            }
        })
        .collect();
    eprintln!("forked");
    if let Some(ms) = std::env::var("THREAD_DELAY_MS")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    let turns: usize = std::env::var("THREAD_TURNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let c0 = cpu_now();
    profile_runs(rt, agent, &ids, turns, side == "plain");
    let per = (cpu_now() - c0).as_secs_f64() * 1e6 / (runs * turns) as f64;
    eprintln!("{side}: CPU {per:.1} µs per run");
}

/// The runs [`profile_one`] measures: `turns` rounds of one run per id, in a thread unless
/// `plain`.
///
/// Without threads (`plain`), the first turn of each conversation starts from the
/// 10-message template and each later turn continues it, as the thread sides do.
#[inline(never)]
fn profile_runs(
    rt: &tokio::runtime::Runtime,
    agent: &AdderAgent,
    ids: &[String],
    turns: usize,
    plain: bool,
) {
    // Without a thread, each conversation's history is kept here, as the continued table's
    // baseline keeps it.
    let mut histories = vec![history(); ids.len()];
    rt.block_on(async {
        for _ in 0..turns {
            for (id, kept) in ids.iter().zip(&mut histories) {
                if plain {
                    let input = Input::with_history(std::mem::take(kept), "2 + 3?");
                    let run = agent.run(input, ()).await.unwrap();
                    *kept = kept_history(&run.messages);
                } else {
                    black_box(agent.thread(id.as_str()).run("2 + 3?", ()).await.unwrap());
                }
            }
        }
    });
}

fn tempfile_dir() -> TempDir {
    let path = std::env::temp_dir().join(format!("agentry-thread-bench-{}", std::process::id()));
    std::fs::create_dir_all(&path).unwrap();
    TempDir(path)
}

/// A directory removed when dropped.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(40);
    targets = bench
}
criterion_main!(benches);
