//! Crash recovery under SIGKILL: a child process runs a 12-step agent in a SQLite thread
//! against a `MockServer` in this (the parent) process, and is killed at random points; each
//! time a new child recovers the thread. Tools append to a side-effect log, which proves that
//! no committed call ran twice, and that the non-idempotent tool never ran twice at all.
//!
//! The child is this test binary run again with `AGENTRY_CRASH_CHILD` set.

#[path = "crash_support/transcript.rs"]
mod transcript;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentry::agent::ThreadStatus;
use agentry::persist::{Checkpointer, SqliteCheckpointer};
use agentry::prelude::*;
use agentry::testing::{MockResponse, MockServer, RecordedRequest};
use rand::{Rng, SeedableRng};

/// Model answers that call tools, before the final one.
const STEPS: usize = 12;
/// Kills that must land while a run is going on.
const KILLS: usize = 20;
const TEST: &str = "sigkill_at_random_points_never_reruns_a_committed_call";

struct Log {
    path: PathBuf,
    thread: String,
    /// Set in the hold test's first child: `observe` of this step waits there to be killed,
    /// once the checkpoint holds `record`'s result of the same step.
    hold: Option<(u32, Arc<dyn Checkpointer>)>,
}

impl Log {
    fn append(&self, what: &str, step: u32) {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .expect("the side-effect log");
        // One `write` per line: children append at the same time, and `writeln!` would write
        // the pieces of a line separately, so lines of two children could interleave.
        let line = format!("{} {what} {step}\n", self.thread);
        file.write_all(line.as_bytes())
            .expect("write the side-effect log");
    }
}

async fn jitter() {
    let ms = rand::rng().random_range(0..6);
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

/// Record a step (not idempotent: runs at most once).
///
/// # Arguments
/// * `step` - The step.
#[tool]
async fn record(step: u32, log: Context<Log>) -> String {
    jitter().await;
    log.append("record", step);
    jitter().await;
    format!("recorded {step}")
}

/// Observe a step (idempotent: may run again after a crash).
///
/// # Arguments
/// * `step` - The step.
#[tool(idempotent)]
async fn observe(step: u32, log: Context<Log>) -> String {
    if let Some((at, checkpointer)) = &log.hold
        && *at == step
    {
        hold(step, &log, &**checkpointer).await;
    }
    jitter().await;
    log.append("observe", step);
    jitter().await;
    format!("observed {step}")
}

/// Waits (at most 5 s) until the thread's checkpoint holds the result of `record`'s call of
/// `step`, says so in the log, and waits to be killed.
async fn hold(step: u32, log: &Log, checkpointer: &dyn Checkpointer) {
    let call = format!("r{step}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        let latest = checkpointer.latest(&log.thread).await.unwrap();
        let saved = latest.is_some_and(|c| {
            c.counters.to_string().contains(&format!("\"{call}\""))
                || c.messages
                    .iter()
                    .any(|m| matches!(m, Message::Tool(t) if t.call_id == call))
        });
        if saved {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    log.append("holding", step);
    std::future::pending::<()>().await;
}

/// You record steps.
#[agent(tools(record, observe), context = Log)]
struct Recorder;

/// The model: batch `n` (n = answers so far) calls both tools with step `n`; then "done".
fn model(request: &RecordedRequest) -> MockResponse {
    let answers = request.body["messages"]
        .as_array()
        .map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count());
    if answers >= STEPS {
        return MockResponse::text("done");
    }
    let args = serde_json::json!({ "step": answers }).to_string();
    MockResponse::tool_calls(vec![
        ToolCall::new(format!("r{answers}"), "record", args.clone()),
        ToolCall::new(format!("o{answers}"), "observe", args),
    ])
}

/// The child: advance `thread` in the SQLite file by one run or one recovery.
async fn child() {
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} is set"));
    let checkpointer = SqliteCheckpointer::open(var("CRASH_DB")).await.unwrap();
    let model = agentry::providers::openai::OpenAiModel::builder("mock")
        .base_url(var("CRASH_URL"))
        .api_key("sk-mock-key-0000")
        .build()
        .unwrap();
    let agent = Recorder::builder(model)
        .max_turns(STEPS as u32 + 2)
        .checkpointer(checkpointer)
        .build();
    let thread_id = var("CRASH_THREAD");
    let hold = match std::env::var("CRASH_HOLD") {
        Ok(step) => Some((
            step.parse().unwrap(),
            Arc::new(SqliteCheckpointer::open(var("CRASH_DB")).await.unwrap())
                as Arc<dyn Checkpointer>,
        )),
        Err(_) => None,
    };
    let log = Log {
        path: var("CRASH_LOG").into(),
        thread: thread_id.clone(),
        hold,
    };
    let thread = agent.thread(&thread_id);
    let outcome = match thread.status().await.unwrap() {
        ThreadStatus::New => thread.run("go", log).await.map(|_| ()),
        ThreadStatus::Running => thread.recover(log).await.map(|_| ()),
        other => panic!("thread {thread_id} is {other:?}"),
    };
    outcome.unwrap();
}

fn spawn_child(db: &Path, url: &str, thread: &str, log: &Path) -> std::process::Child {
    spawn_child_of(TEST, db, url, thread, log, None)
}

fn spawn_child_of(
    test: &str,
    db: &Path,
    url: &str,
    thread: &str,
    log: &Path,
    hold: Option<u32>,
) -> std::process::Child {
    let mut command = Command::new(std::env::current_exe().unwrap());
    if let Some(step) = hold {
        command.env("CRASH_HOLD", step.to_string());
    }
    command
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env("AGENTRY_CRASH_CHILD", "1")
        .env("CRASH_DB", db)
        .env("CRASH_URL", url)
        .env("CRASH_THREAD", thread)
        .env("CRASH_LOG", log)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the child test process")
}

/// Waits for the child without blocking the runtime that serves the mock model.
async fn wait(child: &mut std::process::Child) -> std::process::ExitStatus {
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[tokio::test]
async fn sigkill_at_random_points_never_reruns_a_committed_call() {
    if std::env::var_os("AGENTRY_CRASH_CHILD").is_some() {
        return child().await;
    }
    let seed: u64 = std::env::var("CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| rand::rng().random());
    eprintln!("crash test seed: {seed} (set CRASH_SEED to replay)");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);

    let server = MockServer::with_handler(model).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("threads.db");
    let log_path = dir.path().join("effects.log");
    let checkpointer: Arc<dyn Checkpointer> =
        Arc::new(SqliteCheckpointer::open(&db).await.unwrap());
    // The parent reads the threads through an agent of its own (it never runs it).
    let reader = Recorder::builder(server.openai_model("mock"))
        .shared_checkpointer(Arc::clone(&checkpointer))
        .build();
    let agent_status = |id: String| {
        let thread = reader.thread(id);
        async move { thread.status().await.unwrap() }
    };

    // How long one whole run takes here, to aim the kills inside it.
    let started = Instant::now();
    let mut full = spawn_child(&db, &server.url(), "t0", &log_path);
    let status = wait(&mut full).await;
    assert!(
        status.success(),
        "a child run failed: {}",
        stderr(&mut full)
    );
    let span = started.elapsed().as_millis() as u64;
    eprintln!("one uninterrupted run: {span} ms");

    let mut threads = vec!["t0".to_string()];
    let mut thread = 1;
    let mut kills_mid_run = 0;
    let mut attempts = 0;
    while kills_mid_run < KILLS {
        attempts += 1;
        assert!(
            attempts < 400,
            "only {kills_mid_run} kills landed mid-run in {attempts} attempts"
        );
        let id = format!("t{thread}");
        let mut child = spawn_child(&db, &server.url(), &id, &log_path);
        tokio::time::sleep(Duration::from_millis(rng.random_range(0..span.max(10)))).await;
        let _ = child.kill(); // SIGKILL on Unix; an error means it already exited
        let status = wait(&mut child).await;
        let killed = !status.success();
        let now = agent_status(id.clone()).await;
        if killed && now == ThreadStatus::Running {
            kills_mid_run += 1;
        }
        if !killed {
            // It finished before the kill.
            assert_eq!(now, ThreadStatus::Idle, "{}", stderr(&mut child));
        }
        if now == ThreadStatus::Idle {
            threads.push(id);
            thread += 1;
        }
    }
    // Let the last thread finish.
    let last = format!("t{thread}");
    if agent_status(last.clone()).await != ThreadStatus::New {
        let mut child = spawn_child(&db, &server.url(), &last, &log_path);
        let status = wait(&mut child).await;
        assert!(
            status.success(),
            "the final recovery failed: {}",
            stderr(&mut child)
        );
        threads.push(last);
    }
    eprintln!(
        "{kills_mid_run} kills mid-run over {} threads, {attempts} children",
        threads.len()
    );

    let log = transcript::read_log(&log_path, 3);
    let mut reported = 0;
    for id in &threads {
        let latest = checkpointer
            .latest(id)
            .await
            .unwrap()
            .expect("the thread exists");
        transcript::check_transcript(id, STEPS, &latest.messages, &log, |_| {});
        reported += latest
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Tool(t) if t.is_error))
            .count();
    }
    eprintln!("{reported} in-flight calls reported as not completed");
}

const HOLD_TEST: &str = "a_call_that_finished_before_the_kill_is_not_reported_lost";

/// Deterministic: a child is killed while `observe` of step 3 still runs and `record` of the
/// same step has finished (the checkpoint holds its result); the recovery keeps that result
/// and does not report the call as lost, and `record` 3 ran once.
#[tokio::test]
async fn a_call_that_finished_before_the_kill_is_not_reported_lost() {
    if std::env::var_os("AGENTRY_CRASH_CHILD").is_some() {
        return child().await;
    }
    const STEP: u32 = 3;
    let server = MockServer::with_handler(model).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("threads.db");
    let log_path = dir.path().join("effects.log");
    let checkpointer = SqliteCheckpointer::open(&db).await.unwrap();
    let mut first = spawn_child_of(HOLD_TEST, &db, &server.url(), "h", &log_path, Some(STEP));
    let holding = format!("h holding {STEP}");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&log_path).is_ok_and(|log| log.contains(&holding)) {
        assert!(
            Instant::now() < deadline,
            "the child never reached step {STEP}"
        );
        if let Some(status) = first.try_wait().unwrap() {
            panic!(
                "the child ended ({status}) before step {STEP}: {}",
                stderr(&mut first)
            );
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    first.kill().unwrap();
    wait(&mut first).await;

    let mut second = spawn_child_of(HOLD_TEST, &db, &server.url(), "h", &log_path, None);
    let status = wait(&mut second).await;
    assert!(
        status.success(),
        "the recovery failed: {}",
        stderr(&mut second)
    );

    let latest = checkpointer.latest("h").await.unwrap().expect("the thread");
    let answer = latest
        .messages
        .iter()
        .find_map(|m| match m {
            Message::Tool(t) if t.call_id == format!("r{STEP}") => Some(t),
            _ => None,
        })
        .expect("record's call is answered");
    assert!(
        !answer.is_error,
        "record {STEP} finished before the kill but was reported: {}",
        Message::Tool(answer.clone()).text()
    );
    assert_eq!(
        Message::Tool(answer.clone()).text(),
        format!("recorded {STEP}")
    );
    let log = std::fs::read_to_string(&log_path).unwrap();
    let ran = log
        .lines()
        .filter(|l| *l == format!("h record {STEP}"))
        .count();
    assert_eq!(ran, 1, "record {STEP} ran {ran} times:\n{log}");
    assert_eq!(
        latest.messages.last().map(Message::text).as_deref(),
        Some("done")
    );
}

fn stderr(child: &mut std::process::Child) -> String {
    use std::io::Read;
    let mut text = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut text);
    }
    text
}
