//! A pause that travels as a reference (issue 37, row 4): a run in a SQLite thread pauses for
//! review, and another process approves it from the thread, against the same run in the
//! thread without a review.
//!
//! A paused thread saves its pause in the thread's checkpoint, without the messages the
//! checkpoint already holds, so what leaves the process is the thread's id; the reviewer's
//! process reads the pause from the store (`Thread::pending`, to show the reviewer what the
//! call is), then resumes it (`Thread::resume`), which loads the thread and goes on. That
//! is the path this bench times:
//!
//! - `thread`: `Adder` (model → `add` → model) run in a fresh fork of a 10-message thread;
//! - `pause`: the same steps by `Reviewed` (`review(add(approve))`): `run_or_pause` in one
//!   agent, then `pending` and `resume` with an approval in a second agent built on its own
//!   `SqliteCheckpointer` opened on the same file (its own connection and its own cache of
//!   decoded threads: what another process has);
//! - `thread_exit`, `pause_exit`: the same two with `Durability::Exit`;
//! - `plain`: the run without a thread, its history handed in by hand (for scale).
//!
//! The model is the SDK's `MockServer` in another process (this binary with
//! `PAUSE_SERVE=1`), reached through the real OpenAI client, so the figures are the client
//! process's own. The table gives process CPU time per run (getrusage: every thread, the
//! blocking pool's WAL checkpoints included), interleaved rounds, each side against
//! `thread` and against `plain`.
//!
//! Run: `cargo bench --bench thread_pause` (`-- ROUNDS RUNS`, default 7 and 200). For
//! instructions: `bash benches/thread_pause.sh` (callgrind, counting only the measured runs).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use agentry::agent::{Durability, Input, Outcome};
use agentry::middleware::Decision;
use agentry::persist::{CheckpointWrite, Checkpointer, SqliteCheckpointer};
use agentry::prelude::*;
use agentry::providers::openai::OpenAiModel;
use agentry::testing::{MockResponse, RecordedRequest};

#[path = "shared/process_cpu.rs"]
mod process_cpu;
use process_cpu::cpu_now;

#[path = "shared/process_server.rs"]
mod process_server;

#[path = "shared/adder.rs"]
mod adder;
use adder::{Adder, AdderAgent, add};
#[path = "shared/history.rs"]
mod history;
use history::history;

/// You add numbers with the `add` tool.
#[agent(tools(add), review(add(approve)))]
struct Reviewed;

/// The sides, in the table's order.
const SIDES: [&str; 5] = ["plain", "thread", "pause", "thread_exit", "pause_exit"];

/// The model's part: a call of `add` for the question, the answer once the result is in;
/// anything else gets a 400, so a client that does the job wrong fails instead of being
/// measured.
fn answer(request: &RecordedRequest) -> MockResponse {
    let Some(last) = process_server::messages(request).last() else {
        return process_server::refuse("the request has no messages");
    };
    match last["role"].as_str() {
        Some("user") if process_server::offers_tool(request, "add") => {
            MockResponse::tool_calls(vec![ToolCall::new("call_1", "add", r#"{"a":2,"b":3}"#)])
        }
        Some("tool") if last["content"] == "5" => MockResponse::text("The sum is 5."),
        _ => process_server::refuse(&format!("unexpected last message {last}")),
    }
}

/// The agents of one client process: the one that runs and pauses, and the reviewer's,
/// which stands for another process.
struct Agents {
    plain: AdderAgent,
    thread: AdderAgent,
    thread_exit: AdderAgent,
    pause: ReviewedAgent,
    pause_exit: ReviewedAgent,
    reviewer: ReviewedAgent,
    reviewer_exit: ReviewedAgent,
}

async fn agents(url: &str, file: &Path) -> Agents {
    let model = || {
        OpenAiModel::builder("gpt-4o-mini")
            .base_url(url)
            .api_key("sk-bench")
            .build()
            .expect("a model for the bench server")
    };
    let open = || async {
        let cp: Arc<dyn Checkpointer> = Arc::new(
            SqliteCheckpointer::open(file)
                .await
                .expect("the bench's SQLite file"),
        );
        cp
    };
    let (here, there) = (open().await, open().await);
    let messages = history();
    let template = CheckpointWrite::first("template", &messages, &serde_json::Value::Null);
    here.put(template).await.expect("the template thread");
    let adder = |durability| {
        Adder::builder(model())
            .shared_checkpointer(Arc::clone(&here))
            .durability(durability)
            .build()
    };
    let reviewed = |cp: &Arc<dyn Checkpointer>, durability| {
        Reviewed::builder(model())
            .shared_checkpointer(Arc::clone(cp))
            .durability(durability)
            .build()
    };
    Agents {
        plain: Adder::builder(model()).build(),
        thread: adder(Durability::Step),
        thread_exit: adder(Durability::Exit),
        pause: reviewed(&here, Durability::Step),
        pause_exit: reviewed(&here, Durability::Exit),
        reviewer: reviewed(&there, Durability::Step),
        reviewer_exit: reviewed(&there, Durability::Exit),
    }
}

static NEXT: AtomicU64 = AtomicU64::new(0);

/// `n` fresh forks of the template thread (made outside the timing).
async fn forks(agents: &Agents, n: usize) -> Vec<String> {
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        let id = format!("t{}", NEXT.fetch_add(1, Ordering::Relaxed));
        agents
            .thread
            .thread("template")
            .fork(1, id.clone())
            .await
            .expect("a fork of the template");
        ids.push(id);
    }
    ids
}

/// One run of `side` on the thread `id`; its answer.
async fn run_one(agents: &Agents, side: &str, id: &str) -> String {
    match side {
        "plain" => {
            let input = Input::with_history(history(), "2 + 3?");
            agents.plain.run(input, ()).await.expect("a run").output
        }
        "thread" => {
            agents
                .thread
                .thread(id)
                .run("2 + 3?", ())
                .await
                .expect("a run")
                .output
        }
        "thread_exit" => {
            let thread = agents.thread_exit.thread(id);
            thread.run("2 + 3?", ()).await.expect("a run").output
        }
        "pause" | "pause_exit" => {
            let (agent, reviewer) = if side == "pause" {
                (&agents.pause, &agents.reviewer)
            } else {
                (&agents.pause_exit, &agents.reviewer_exit)
            };
            match agent.thread(id).run_or_pause("2 + 3?", ()).await {
                Ok(Outcome::Paused(_)) => {}
                other => panic!("the call of `add` needs review: {:?}", other.map(|_| ())),
            }
            // The reviewer's process: it reads the pause to show the call, then approves it.
            let thread = reviewer.thread(id);
            let pause = thread
                .pending()
                .await
                .expect("a read")
                .expect("a saved pause");
            let call = pause.reviews().next().expect("one review").call_id.clone();
            let outcome = thread.resume([(call, Decision::Approve)], ()).await;
            outcome
                .expect("a resume")
                .finished()
                .expect("a finished run")
                .output
        }
        other => panic!("unknown side `{other}`; sides: {SIDES:?}"),
    }
}

/// The measured runs (callgrind counts this function alone: `--toggle-collect`).
#[inline(never)]
fn measured(rt: &tokio::runtime::Runtime, agents: &Agents, side: &str, ids: &[String]) {
    rt.block_on(async {
        for id in ids {
            black_box(run_one(agents, side, id).await);
        }
    });
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The server child: this binary with `PAUSE_SERVE=1`; closing its stdin ends it.
struct Server(Child);

impl Server {
    fn start() -> (Server, String) {
        let exe = std::env::current_exe().expect("this executable");
        let mut child = Command::new(exe)
            .env("PAUSE_SERVE", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the bench server process");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("the server's stdout");
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)
            .expect("the server's URL");
        let url = line
            .trim()
            .strip_prefix(process_server::URL_PREFIX)
            .unwrap_or_else(|| panic!("the server printed {line:?} instead of its URL"))
            .to_owned();
        (Server(child), url)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.0.stdin.take());
        let _ = self.0.wait();
    }
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn arg(n: usize, default: usize) -> usize {
    std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .nth(n)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn main() {
    if std::env::var_os("PAUSE_SERVE").is_some() {
        process_server::serve(answer).expect("the bench server");
        return;
    }
    let dir = TempDir(std::env::temp_dir().join(format!("agentry-pause-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).expect("a temporary directory");
    let (server, url) = Server::start();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let agents = rt.block_on(agents(&url, &dir.0.join("threads.db")));

    // Every side gives the same answer, and the paused thread ends as the plain one does.
    for side in SIDES {
        let ids = rt.block_on(forks(&agents, 1));
        assert_eq!(
            rt.block_on(run_one(&agents, side, &ids[0])),
            "The sum is 5."
        );
    }

    // `PAUSE_ONLY=<side> PAUSE_RUNS=N`: N runs of one side, for callgrind.
    if let Ok(side) = std::env::var("PAUSE_ONLY") {
        let runs = std::env::var("PAUSE_RUNS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(100);
        let ids = rt.block_on(forks(&agents, runs));
        measured(&rt, &agents, &side, &ids);
        drop(server);
        return;
    }

    let (rounds, runs) = (arg(0, 7).max(1), arg(1, 200).max(1));
    println!(
        "thread_pause: process CPU per run, {rounds} interleaved rounds of {runs} runs \
         (the model in another process over loopback HTTP)"
    );
    let mut per_round: Vec<Vec<f64>> = vec![Vec::new(); SIDES.len()];
    for round in 0..rounds {
        let mut order: Vec<usize> = (0..SIDES.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        for i in order {
            let ids = rt.block_on(forks(&agents, runs));
            let start = cpu_now();
            measured(&rt, &agents, SIDES[i], &ids);
            per_round[i].push((cpu_now() - start).as_secs_f64() * 1e6 / runs as f64);
        }
    }
    let ratio = |i: usize, base: usize| {
        median(
            per_round[i]
                .iter()
                .zip(&per_round[base])
                .map(|(a, b)| a / b)
                .collect(),
        )
    };
    println!(
        "  {:<12} {:>9} {:>10} {:>10}",
        "side", "µs CPU", "/ thread", "/ plain"
    );
    for (i, side) in SIDES.iter().enumerate() {
        let base = if side.ends_with("_exit") { 3 } else { 1 };
        println!(
            "  {side:<12} {:>9.1} {:>9.3}x {:>9.3}x",
            median(per_round[i].clone()),
            ratio(i, base),
            ratio(i, 0)
        );
    }
    println!(
        "  (`/ thread`: per-round ratio to the thread run of the same durability, median; \
         issue 37's goal for a pause is 1.5x the run of the same steps)"
    );
    drop(server);
}
