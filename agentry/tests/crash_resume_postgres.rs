//! Crash recovery across worker processes on Postgres: a worker process runs a 12-step agent
//! in a thread under a lease (renewed by its heartbeat) against a `MockServer` in this (the
//! parent) process, and is SIGKILLed at a random point. Three recoverer processes then race
//! with `recover_orphans` until the thread is done, and one of them is SIGKILLed at a random
//! point too. Tools append to a side-effect log, which proves that no completed call ran
//! twice and that the non-idempotent tool never ran twice at all.
//!
//! The workers are this test binary run again with `AGENTRY_PG_CRASH_CHILD` set. Postgres is
//! started by the test (`initdb` + `pg_ctl` on loopback, see `agentry::testing::PostgresServer`).

#[path = "crash_support/transcript.rs"]
mod transcript;

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentry::agent::{RunErrorKind, ThreadError, ThreadStatus};
use agentry::persist::{Checkpointer, PersistError, PostgresCheckpointer};
use agentry::prelude::*;
use agentry::testing::{MockResponse, MockServer, PostgresServer, RecordedRequest};
use rand::{Rng, SeedableRng};

/// Model answers that call tools, before the final one.
const STEPS: usize = 12;
/// Rounds: one killed worker and three racing recoverers each.
const ROUNDS: usize = 10;
/// The workers' lease TTL (the heartbeat renews it every third).
const TTL: Duration = Duration::from_millis(800);
const TEST: &str = "workers_killed_at_random_points_never_complete_a_call_twice";

struct Log {
    path: String,
    thread: String,
    worker: String,
}

impl Log {
    fn append(&self, what: &str, step: u32) {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .expect("the side-effect log");
        // One `write` per line (O_APPEND): lines of workers writing at once do not mix.
        let line = format!("{} {what} {step} {}\n", self.thread, self.worker);
        file.write_all(line.as_bytes())
            .expect("write the side-effect log");
    }
}

async fn jitter() {
    let ms = rand::rng().random_range(0..8);
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
    jitter().await;
    log.append("observe", step);
    jitter().await;
    format!("observed {step}")
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

/// A worker process: `run` starts the thread under a lease; `recover` calls
/// `recover_orphans` until the thread is idle.
async fn child() {
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} is set"));
    let checkpointer = PostgresCheckpointer::connect(&var("PG_CRASH_DB"))
        .await
        .unwrap();
    let model = agentry::providers::openai::OpenAiModel::builder("mock")
        .base_url(var("PG_CRASH_URL"))
        .api_key("sk-mock-key-0000")
        .build()
        .unwrap();
    let agent = Recorder::builder(model)
        .max_turns(STEPS as u32 + 2)
        .checkpointer(checkpointer.clone())
        .build();
    let thread_id = var("PG_CRASH_THREAD");
    let worker = var("PG_CRASH_WORKER");
    let log = Arc::new(Log {
        path: var("PG_CRASH_LOG"),
        thread: thread_id.clone(),
        worker: worker.clone(),
    });
    if var("PG_CRASH_MODE") == "run" {
        let lease = checkpointer
            .acquire_lease(&thread_id, &worker, TTL)
            .await
            .unwrap()
            .expect("a new thread is free");
        let thread = agent.thread(thread_id.as_str()).with_lease(lease.clone());
        thread.run("go", log).await.unwrap();
        checkpointer.release_lease(&lease).await.unwrap();
        return;
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        for orphan in agent
            .recover_orphans(Duration::ZERO, &worker, TTL, Arc::clone(&log))
            .await
            .unwrap()
        {
            match orphan.outcome {
                Ok(_) => {}
                // This worker stalled past its lease and another took the thread over: it
                // stopped without writing, as it must.
                Err(e)
                    if matches!(
                        e.kind(),
                        RunErrorKind::Thread(ThreadError::Persist(
                            PersistError::LeaseLost { .. } | PersistError::LeaseExpired { .. }
                        ))
                    ) =>
                {
                    eprintln!("{worker}: {e}");
                }
                Err(e) => panic!("{worker}: recovering {} failed: {e}", orphan.thread_id),
            }
        }
        if agent.thread(thread_id.as_str()).status().await.unwrap() == ThreadStatus::Idle {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{worker}: the thread never finished"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn spawn(mode: &str, db: &str, url: &str, thread: &str, worker: &str, log: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env("AGENTRY_PG_CRASH_CHILD", "1")
        .env("PG_CRASH_MODE", mode)
        .env("PG_CRASH_DB", db)
        .env("PG_CRASH_URL", url)
        .env("PG_CRASH_THREAD", thread)
        .env("PG_CRASH_WORKER", worker)
        .env("PG_CRASH_LOG", log)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn a worker process")
}

/// Waits for a worker without blocking the runtime that serves the mock model.
async fn wait(child: &mut Child) -> std::process::ExitStatus {
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

fn stderr(child: &mut Child) -> String {
    use std::io::Read;
    let mut text = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut text);
    }
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_killed_at_random_points_never_complete_a_call_twice() {
    if std::env::var_os("AGENTRY_PG_CRASH_CHILD").is_some() {
        return child().await;
    }
    let seed: u64 = std::env::var("CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| rand::rng().random());
    eprintln!("crash test seed: {seed} (set CRASH_SEED to replay)");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);

    let postgres = PostgresServer::start().unwrap_or_else(|e| panic!("{e}"));
    let db = postgres.create_database().unwrap_or_else(|e| panic!("{e}"));
    let checkpointer = PostgresCheckpointer::connect(&db).await.unwrap();
    let server = MockServer::with_handler(model).await;
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("effects.log");
    let status = |id: String| {
        let checkpointer = checkpointer.clone();
        async move {
            match checkpointer.latest(&id).await.unwrap() {
                None => ThreadStatus::New,
                Some(c) if c.counters["status"] == "running" => ThreadStatus::Running,
                Some(_) => ThreadStatus::Idle,
            }
        }
    };

    // How long one whole run takes here, to aim the kills inside it.
    let started = Instant::now();
    let mut full = spawn("run", &db, &server.url(), "t0", "w0", &log);
    let exit = wait(&mut full).await;
    assert!(
        exit.success(),
        "an uninterrupted run failed: {}",
        stderr(&mut full)
    );
    let span = started.elapsed().as_millis() as u64;
    eprintln!("one uninterrupted run, process start included: {span} ms");

    let mut threads = vec!["t0".to_string()];
    let mut kills_mid_run = 0;
    let mut recoverers_killed = 0;
    for round in 1..=ROUNDS {
        let id = format!("t{round}");
        let mut runner = spawn("run", &db, &server.url(), &id, &format!("w{round}"), &log);
        tokio::time::sleep(Duration::from_millis(
            rng.random_range(span / 5..span.max(10)),
        ))
        .await;
        let _ = runner.kill(); // SIGKILL; an error means it already exited
        let exit = wait(&mut runner).await;
        threads.push(id.clone());
        match status(id.clone()).await {
            // Finished: the kill missed, or landed after the last checkpoint and before
            // the process exited. Any other failure is a real one.
            ThreadStatus::Idle => {
                assert!(
                    exit.success() || exit.signal() == Some(9),
                    "{}",
                    stderr(&mut runner)
                );
                continue;
            }
            ThreadStatus::Running => kills_mid_run += 1,
            // Killed before its first checkpoint: once its lease ran out, start it again,
            // unkilled, for the check.
            _ => {
                tokio::time::sleep(TTL).await;
                let mut again = spawn("run", &db, &server.url(), &id, &format!("w{round}b"), &log);
                let exit = wait(&mut again).await;
                assert!(exit.success(), "{}", stderr(&mut again));
                continue;
            }
        }
        // Three recoverers race for the orphan; one of them is killed at a random point.
        let mut recoverers: Vec<Child> = (0..3)
            .map(|i| {
                spawn(
                    "recover",
                    &db,
                    &server.url(),
                    &id,
                    &format!("r{round}-{i}"),
                    &log,
                )
            })
            .collect();
        let victim = rng.random_range(0..3);
        let at = TTL.as_millis() as u64 + rng.random_range(0..span.max(10));
        tokio::time::sleep(Duration::from_millis(at)).await;
        if recoverers[victim].try_wait().unwrap().is_none() {
            let _ = recoverers[victim].kill();
            recoverers_killed += 1;
        }
        for (i, r) in recoverers.iter_mut().enumerate() {
            let exit = wait(r).await;
            if i != victim {
                assert!(
                    exit.success(),
                    "recoverer {i} of {id} failed: {}",
                    stderr(r)
                );
            }
        }
        assert_eq!(
            status(id.clone()).await,
            ThreadStatus::Idle,
            "{id} was not recovered"
        );
    }
    eprintln!(
        "{kills_mid_run} runs killed mid-run, {recoverers_killed} recoverers killed, over {} threads",
        threads.len()
    );
    assert!(
        kills_mid_run >= ROUNDS / 2,
        "only {kills_mid_run} kills landed mid-run"
    );

    let ran = transcript::read_log(&log, 4);
    for id in &threads {
        let latest = checkpointer.latest(id).await.unwrap().expect("the thread");
        transcript::check_transcript(id, STEPS, &latest.messages, &ran, |_| {});
    }
}
