//! Threads on a real `restate-server`: a review that outlives the service process, decided
//! from another process; and many concurrent runs on many threads, each thread's runs in the
//! order sent.

#[path = "restate_support/server.rs"]
#[allow(dead_code)]
mod server;
#[path = "restate_support/service.rs"]
#[allow(dead_code)]
mod service;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use agentry::prelude::*;
use agentry::testing::{MockResponse, MockServer, RecordedRequest};
use serde_json::{Value, json};
use service::{call_run, pending, saved_thread, spawn_service, wait_listening};

const REVIEW_TEST: &str = "a_review_outlives_the_service_and_is_decided_from_another_process";
const ORDER_TEST: &str = "concurrent_runs_keep_each_threads_order";
const TIMEOUT_TEST: &str = "an_undecided_review_is_rejected_by_an_engine_timer";

fn last_user_text(messages: &[Value]) -> String {
    messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// The review model: the first answer calls `send` (reviewed), the next says "done".
fn review_model(request: &RecordedRequest) -> MockResponse {
    let messages = request.body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if messages.iter().any(|m| m["role"] == "tool") {
        return MockResponse::text("done");
    }
    let thread = last_user_text(&messages)
        .trim_start_matches("go ")
        .to_string();
    let args = json!({ "thread": thread, "text": "hi" }).to_string();
    MockResponse::tool_calls(vec![ToolCall::new("s0", "send", args)])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_outlives_the_service_and_is_decided_from_another_process() {
    if std::env::var_os("AGENTRY_RESTATE_CHILD").is_some() {
        return service::child().await;
    }
    if let Ok(url) = std::env::var("AGENTRY_RESTATE_DECIDE") {
        // The deciding process: resolves the awakeable through the engine's ingress, while
        // no service process runs.
        let decisions = json!({ "s0": { "decision": "approve" } });
        let response = reqwest::Client::new()
            .post(url)
            .json(&decisions)
            .send()
            .await
            .unwrap();
        assert!(
            response.status().is_success(),
            "{}",
            response.text().await.unwrap()
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = server::Server::start(dir.path());
    let mock = MockServer::with_handler(review_model).await;
    let log = dir.path().join("effects.log");
    let port = server::free_port();
    let mut service = spawn_service(REVIEW_TEST, port, &mock.url(), &log);
    wait_listening(port);
    server.register(&format!("http://127.0.0.1:{port}")).await;
    let ingress = server.ingress_url();

    let run = tokio::spawn(call_run(ingress.clone(), "r1".into(), "go r1".into()));
    let deadline = Instant::now() + Duration::from_secs(60);
    let review = loop {
        if let Some(review) = pending(&ingress, "r1").await {
            break review;
        }
        assert!(Instant::now() < deadline, "the run never paused for review");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(review.reviews.len(), 1);
    assert_eq!(review.reviews[0].call_id, "s0");

    // Everything but the server goes: the service and the caller.
    let _ = service.kill();
    let _ = service.wait();
    run.abort();
    let url = format!("{ingress}/restate/awakeables/{}/resolve", review.awakeable);
    let decider = std::process::Command::new(std::env::current_exe().unwrap())
        .args([REVIEW_TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env("AGENTRY_RESTATE_DECIDE", url)
        .output()
        .unwrap();
    assert!(
        decider.status.success(),
        "the deciding process failed: {}",
        String::from_utf8_lossy(&decider.stdout)
    );
    assert!(
        !std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("send"),
        "the reviewed call ran before the service came back"
    );

    // A supervisor starts the service again; the run finishes.
    let mut service = spawn_service(REVIEW_TEST, port, &mock.url(), &log);
    wait_listening(port);
    let reply = tokio::time::timeout(
        Duration::from_secs(60),
        call_run(ingress.clone(), "r1".into(), "go r1".into()),
    )
    .await
    .expect("the run finished")
    .unwrap();
    assert_eq!(reply["output"], "done");
    let thread = saved_thread(&ingress, "r1").await;
    let results: Vec<String> = thread
        .messages
        .iter()
        .filter(|m| matches!(m, Message::Tool(_)))
        .map(Message::text)
        .collect();
    assert_eq!(results, ["sent hi"]);
    assert!(pending(&ingress, "r1").await.is_none());
    let sent = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        sent.lines().filter(|l| l.contains("send")).count(),
        1,
        "{sent}"
    );
    let _ = service.kill();
    let _ = service.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undecided_review_is_rejected_by_an_engine_timer() {
    if std::env::var_os("AGENTRY_RESTATE_CHILD").is_some() {
        return service::child().await;
    }
    // SAFETY: set before any thread of this test process reads the environment; the service
    // process inherits it.
    unsafe { std::env::set_var("RESTATE_REVIEW_TIMEOUT_MS", "1500") };
    let dir = tempfile::tempdir().unwrap();
    let server = server::Server::start(dir.path());
    let mock = MockServer::with_handler(review_model).await;
    let log = dir.path().join("effects.log");
    let port = server::free_port();
    let mut service = spawn_service(TIMEOUT_TEST, port, &mock.url(), &log);
    wait_listening(port);
    server.register(&format!("http://127.0.0.1:{port}")).await;
    let ingress = server.ingress_url();

    let reply = tokio::time::timeout(
        Duration::from_secs(60),
        call_run(ingress.clone(), "w1".into(), "go w1".into()),
    )
    .await
    .expect("the timer ended the review")
    .unwrap();
    assert_eq!(reply["output"], "done");
    let thread = saved_thread(&ingress, "w1").await;
    let results: Vec<String> = thread
        .messages
        .iter()
        .filter(|m| matches!(m, Message::Tool(_)))
        .map(Message::text)
        .collect();
    assert_eq!(results.len(), 1);
    assert!(results[0].contains("the review timed out"), "{results:?}");
    assert!(
        !std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("send"),
        "the rejected call ran"
    );
    let _ = service.kill();
    let _ = service.wait();
}

/// Threads and runs per thread of the order test.
const THREADS: usize = 50;
const RUNS: usize = 4;

/// The order model: a run `go tN #k` calls `observe` with step `k`, then says `done #k`.
fn order_model(request: &RecordedRequest) -> MockResponse {
    let messages = request.body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let input = last_user_text(&messages);
    let (thread, run) = input
        .trim_start_matches("go ")
        .split_once(" #")
        .unwrap_or(("?", "0"));
    if messages.last().is_some_and(|m| m["role"] == "tool") {
        return MockResponse::text(format!("done #{run}"));
    }
    let args = json!({ "thread": thread, "step": run.parse::<u32>().unwrap_or(0) }).to_string();
    MockResponse::tool_calls(vec![ToolCall::new(format!("o{run}"), "observe", args)])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_runs_keep_each_threads_order() {
    if std::env::var_os("AGENTRY_RESTATE_CHILD").is_some() {
        return service::child().await;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = server::Server::start(dir.path());
    let mock = MockServer::with_handler(order_model).await;
    let log = dir.path().join("effects.log");
    let port = server::free_port();
    let mut service = spawn_service(ORDER_TEST, port, &mock.url(), &log);
    wait_listening(port);
    server.register(&format!("http://127.0.0.1:{port}")).await;
    let ingress = server.ingress_url();
    let client = reqwest::Client::new();

    // Each thread's runs are enqueued in order (one-way sends); the threads interleave.
    let started = Instant::now();
    for run in 0..RUNS {
        for t in 0..THREADS {
            let input = format!("go t{t} #{run}");
            let response = client
                .post(format!("{ingress}/Threads/t{t}/run/send"))
                .header("idempotency-key", format!("t{t}/{input}"))
                .json(&input)
                .send()
                .await
                .unwrap();
            assert!(
                response.status().is_success(),
                "{}",
                response.text().await.unwrap()
            );
        }
    }
    let deadline = Instant::now() + Duration::from_secs(180);
    let mut threads = HashMap::new();
    while threads.len() < THREADS {
        assert!(
            Instant::now() < deadline,
            "only {} threads finished their runs",
            threads.len()
        );
        for t in 0..THREADS {
            let id = format!("t{t}");
            if threads.contains_key(&id) {
                continue;
            }
            let saved = saved_thread(&ingress, &id).await;
            if saved.runs == RUNS as u64 {
                threads.insert(id, saved);
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    eprintln!(
        "{} runs on {THREADS} threads in {:?}",
        THREADS * RUNS,
        started.elapsed()
    );
    let effects = std::fs::read_to_string(&log).unwrap();
    for (id, saved) in &threads {
        let texts: Vec<String> = saved.messages.iter().map(Message::text).collect();
        let expected: Vec<String> = (0..RUNS)
            .flat_map(|k| {
                [
                    format!("go {id} #{k}"),
                    String::new(),
                    format!("observed {k}"),
                    format!("done #{k}"),
                ]
            })
            .collect();
        assert_eq!(texts, expected, "{id}: the runs in order, nothing lost");
        for k in 0..RUNS {
            let line = format!("{id} observe {k}");
            assert!(
                effects.lines().any(|l| l == line),
                "{id}: run {k}'s tool never ran"
            );
        }
    }
    let _ = service.kill();
    let _ = service.wait();
}
