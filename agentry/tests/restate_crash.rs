//! Durable runs on a real `restate-server`: the service process (this test binary run again
//! with `AGENTRY_RESTATE_CHILD` set) runs a 12-step agent as a virtual object and is
//! SIGKILLed at random points, each time started again on the same endpoint, as a supervisor
//! would; once, the server itself is killed mid-run and restarted on its data. Every run
//! completes; the side-effect log proves no completed tool call ran twice, and the model
//! requests' serial numbers prove no journaled answer was asked for again.

#[path = "restate_support/server.rs"]
mod server;
#[path = "restate_support/service.rs"]
#[allow(dead_code)]
mod service;
#[path = "crash_support/transcript.rs"]
mod transcript;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agentry::prelude::*;
use agentry::testing::{MockResponse, MockServer, RecordedRequest};
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use service::{STEPS, call_run, saved_thread, spawn_service, wait_listening};

/// Kills of the service that must land while a run is going on.
const KILLS: usize = 20;
const TEST: &str = "sigkill_the_service_and_the_server_mid_run";

/// Model requests: (thread, step, serial).
type Requests = Arc<Mutex<Vec<(String, usize, u64)>>>;

/// The model: the `n`th answer (n = answers so far) calls `record` and `observe` with step
/// `n` and the request's serial; then "done".
fn model(requests: Requests) -> impl Fn(&RecordedRequest) -> MockResponse + Send + Sync {
    move |request| {
        let messages = request.body["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let answers = messages.iter().filter(|m| m["role"] == "assistant").count();
        let thread = messages
            .iter()
            .find(|m| m["role"] == "user")
            .and_then(|m| m["content"].as_str())
            .and_then(|t| t.strip_prefix("go "))
            .unwrap_or("?")
            .to_string();
        let mut log = requests.lock().unwrap();
        let serial = log.len() as u64;
        log.push((thread.clone(), answers, serial));
        if answers >= STEPS {
            return MockResponse::text("done");
        }
        let record = json!({ "thread": thread, "step": answers, "serial": serial }).to_string();
        let observe = json!({ "thread": thread, "step": answers }).to_string();
        MockResponse::tool_calls(vec![
            ToolCall::new(format!("r{answers}"), "record", record),
            ToolCall::new(format!("o{answers}"), "observe", observe),
        ])
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_the_service_and_the_server_mid_run() {
    if std::env::var_os("AGENTRY_RESTATE_CHILD").is_some() {
        return service::child().await;
    }
    let seed: u64 = std::env::var("CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| rand::rng().random());
    eprintln!("restate crash test seed: {seed} (set CRASH_SEED to replay)");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);

    let dir = tempfile::tempdir().unwrap();
    let mut server = server::Server::start(dir.path());
    let requests: Requests = Arc::default();
    let mock = MockServer::with_handler(model(Arc::clone(&requests))).await;
    let log_path = dir.path().join("effects.log");
    let port = server::free_port();
    let mut service = spawn_service(TEST, port, &mock.url(), &log_path);
    wait_listening(port);
    server.register(&format!("http://127.0.0.1:{port}")).await;
    let ingress = server.ingress_url();

    // One uninterrupted run, to aim the kills inside a run.
    let started = Instant::now();
    call_run(ingress.clone(), "t0".into(), "go t0".into())
        .await
        .unwrap();
    let span = started.elapsed().as_millis() as u64;
    eprintln!("one uninterrupted run: {span} ms");

    let mut threads = vec!["t0".to_string()];
    let mut kills = 0;
    let mut server_killed = false;
    let test_started = Instant::now();
    while kills < KILLS || !server_killed {
        let thread = format!("t{}", threads.len());
        let mut run = tokio::spawn(call_run(
            ingress.clone(),
            thread.clone(),
            format!("go {thread}"),
        ));
        let mut killed_here = 0;
        loop {
            let wait = Duration::from_millis(rng.random_range(5..span.max(10)));
            let done = tokio::time::timeout(wait, &mut run).await;
            if let Ok(result) = done {
                result.unwrap().unwrap_or_else(|e| panic!("{thread}: {e}"));
                break;
            }
            if kills >= KILLS && !server_killed {
                // Once: the server itself, mid-run; the ingress call dies with it and is
                // sent again (same idempotency key) to attach to the same invocation.
                server.restart();
                server_killed = true;
                run.abort();
                run = tokio::spawn(call_run(
                    ingress.clone(),
                    thread.clone(),
                    format!("go {thread}"),
                ));
                continue;
            }
            if killed_here < 3 && kills < KILLS {
                let _ = service.kill();
                let _ = service.wait();
                kills += 1;
                killed_here += 1;
                service = spawn_service(TEST, port, &mock.url(), &log_path);
                wait_listening(port);
            }
        }
        threads.push(thread);
    }
    eprintln!(
        "{kills} service kills and 1 server kill mid-run over {} runs in {:?}",
        threads.len(),
        test_started.elapsed()
    );

    let log = transcript::read_log(&log_path, 3);
    let requests = requests.lock().unwrap().clone();
    let mut reported = 0;
    for thread in &threads {
        let saved = saved_thread(&ingress, thread).await;
        transcript::check_transcript(thread, STEPS, &saved.messages, &log, |call| {
            if call.name == "record" {
                let args: Value = serde_json::from_str(&call.arguments).unwrap();
                let step = args["step"].as_u64().unwrap() as usize;
                let serial = args["serial"].as_u64().unwrap();
                // The journaled answer is the last one requested for its step: no request
                // for this step came after it was saved.
                let last = requests
                    .iter()
                    .filter(|(t, s, _)| t == thread && *s == step)
                    .map(|(_, _, serial)| *serial)
                    .max();
                assert_eq!(
                    Some(serial),
                    last,
                    "{thread}: step {step}'s saved answer was requested again"
                );
            }
        });
        reported += saved
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Tool(t) if t.is_error))
            .count();
    }
    let repeated = requests.len() - threads.len() * (STEPS + 1);
    eprintln!(
        "{reported} in-flight calls reported as not completed; {repeated} model requests \
         repeated (in flight at a kill)"
    );
    let _ = service.kill();
    let _ = service.wait();
}
