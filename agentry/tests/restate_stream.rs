//! A Restate run's events, followed over the SSE side channel (`EventHub::router`) of the
//! service process, against a real `restate-server`: they arrive in order and equal an
//! in-process streamed run of the same script; with the service SIGKILLed mid-run (and
//! started again on the same ports), the subscriber, reconnecting from its last `seq`, sees
//! no number twice and no gap, each turn once, and the run's final events.

#[path = "restate_support/server.rs"]
#[allow(dead_code)]
mod server;
#[path = "restate_support/service.rs"]
#[allow(dead_code)]
mod service;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agentry::prelude::*;
use agentry::restate::{RunEvent, StreamedEvent};
use agentry::testing::{MockResponse, MockServer, RecordedRequest};
use futures::StreamExt;
use serde_json::{Value, json};
use service::{spawn_service_with, wait_listening};

/// The model: answer `n` (n = answers so far) calls `observe` with step `n` after a line of
/// text, until `steps`; then a closing text. A function of the transcript only, so an
/// answer asked for again is the same answer.
fn model(steps: usize) -> impl Fn(&RecordedRequest) -> MockResponse + Send + Sync {
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
        let usage = Usage {
            input_tokens: 10 + answers as u64,
            output_tokens: 3,
            requests: 1,
            ..Usage::default()
        };
        if answers >= steps {
            return MockResponse::text(format!("All {steps} steps of {thread} are observed."))
                .usage(usage);
        }
        let observe = json!({ "thread": thread, "step": answers }).to_string();
        MockResponse::tool_calls(vec![ToolCall::new(
            format!("o{answers}"),
            "observe",
            observe,
        )])
        .usage(usage)
    }
}

/// Starts a run on `thread` without waiting for it: its invocation id.
async fn send_run(ingress: &str, thread: &str) -> String {
    let input = format!("go {thread}");
    let response = reqwest::Client::new()
        .post(format!("{ingress}/Threads/{thread}/run/send"))
        .json(&input)
        .send()
        .await
        .expect("send the run");
    let body: Value = response.json().await.expect("the send reply");
    body["invocationId"]
        .as_str()
        .unwrap_or_else(|| panic!("no invocation id in {body}"))
        .to_string()
}

/// What the subscriber saw.
#[derive(Default)]
struct Seen {
    events: Vec<StreamedEvent>,
    /// `missed` events (there must be none: the buffer holds the whole run).
    missed: Vec<String>,
    connections: usize,
    ended: bool,
}

/// Follows `invocation` over SSE at `port` until its `end` event, reconnecting with
/// `Last-Event-ID` whenever the connection drops (the service died).
async fn follow(port: u16, invocation: String, seen: Arc<Mutex<Seen>>) {
    let client = reqwest::Client::new();
    let url = format!("http://127.0.0.1:{port}/runs/{invocation}/events");
    loop {
        let last = seen.lock().unwrap().events.last().map(|e| e.seq);
        let mut request = client.get(&url);
        if let Some(last) = last {
            request = request.header("last-event-id", last.to_string());
        }
        let Ok(response) = request.send().await else {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        seen.lock().unwrap().connections += 1;
        let mut body = response.bytes_stream();
        let mut pending = String::new();
        while let Some(Ok(chunk)) = body.next().await {
            pending.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = pending.find("\n\n") {
                let block: String = pending.drain(..end + 2).collect();
                let mut kind = "message";
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(k) = line.strip_prefix("event:") {
                        kind = k.trim();
                    } else if let Some(d) = line.strip_prefix("data:") {
                        data.push_str(d.trim_start());
                    }
                }
                let mut seen = seen.lock().unwrap();
                match kind {
                    "run" => seen.events.push(serde_json::from_str(&data).unwrap()),
                    "missed" => seen.missed.push(data),
                    "end" => {
                        seen.ended = true;
                        return;
                    }
                    _ => {}
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The service with events on, its model the mock at `model_url`.
fn spawn(
    test: &str,
    ports: (u16, u16),
    model_url: &str,
    log: &std::path::Path,
) -> std::process::Child {
    let env = [("RESTATE_EVENTS_PORT", ports.1.to_string())];
    let child = spawn_service_with(test, ports.0, model_url, log, &env);
    wait_listening(ports.0);
    wait_listening(ports.1);
    child
}

/// Waits for the subscriber to see the run's end.
async fn ended(seen: &Arc<Mutex<Seen>>, server: &server::Server) {
    let deadline = Instant::now() + Duration::from_secs(180);
    while !seen.lock().unwrap().ended {
        assert!(
            Instant::now() < deadline,
            "the run's events never ended; server log:\n{}",
            server.log_tail()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

const MATCH: &str = "a_streamed_run_matches_the_in_process_stream";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_run_matches_the_in_process_stream() {
    if std::env::var_os("AGENTRY_RESTATE_CHILD").is_some() {
        return service::child().await;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = server::Server::start(dir.path());
    let mock = MockServer::with_handler(model(3)).await;
    let log = dir.path().join("effects.log");
    let ports = (server::free_port(), server::free_port());
    let mut service = spawn(MATCH, ports, &mock.url(), &log);
    server
        .register(&format!("http://127.0.0.1:{}", ports.0))
        .await;

    let invocation = send_run(&server.ingress_url(), "s1").await;
    let seen = Arc::new(Mutex::new(Seen::default()));
    tokio::spawn(follow(ports.1, invocation, Arc::clone(&seen)));
    ended(&seen, &server).await;
    let _ = service.kill();
    let _ = service.wait();

    // The same script, streamed in process.
    let model = agentry::providers::openai::OpenAiModel::builder("mock")
        .base_url(mock.url())
        .api_key("sk-mock-key-0000")
        .build()
        .unwrap();
    let agent = service::recorder(model);
    let context = service::Log::new(dir.path().join("in-process.log"));
    let mut stream = agent.stream("go s1", context);
    let mut expected = Vec::new();
    while let Some(event) = stream.next().await {
        expected.extend(RunEvent::from_event(&event.unwrap()));
    }

    let seen = seen.lock().unwrap();
    assert!(seen.missed.is_empty(), "missed: {:?}", seen.missed);
    let seqs: Vec<u64> = seen.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
    let got: Vec<RunEvent> = seen.events.iter().map(|e| e.event.clone()).collect();
    assert!(
        got.iter().any(|e| matches!(e, RunEvent::TextDelta { .. })),
        "no text deltas: {got:?}"
    );
    assert!(matches!(got.last(), Some(RunEvent::Done { .. })), "{got:?}");
    assert_eq!(got, expected);
}

const KILL: &str = "a_killed_service_publishes_no_event_twice";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_service_publishes_no_event_twice() {
    if std::env::var_os("AGENTRY_RESTATE_CHILD").is_some() {
        return service::child().await;
    }
    const STEPS: usize = 12;
    const KILLS: usize = 3;
    let dir = tempfile::tempdir().unwrap();
    let server = server::Server::start(dir.path());
    let mock = MockServer::with_handler(model(STEPS)).await;
    let log = dir.path().join("effects.log");
    let ports = (server::free_port(), server::free_port());
    let mut service = spawn(KILL, ports, &mock.url(), &log);
    server
        .register(&format!("http://127.0.0.1:{}", ports.0))
        .await;

    let invocation = send_run(&server.ingress_url(), "k1").await;
    let seen = Arc::new(Mutex::new(Seen::default()));
    tokio::spawn(follow(ports.1, invocation, Arc::clone(&seen)));
    // Kill the service when the subscriber has seen turns 3, 6 and 9 start: the run has
    // turns left to go, so the engine runs it again on the next process.
    let mut kills = 0;
    let deadline = Instant::now() + Duration::from_secs(180);
    while kills < KILLS {
        assert!(Instant::now() < deadline, "{}", server.log_tail());
        let turn = seen
            .lock()
            .unwrap()
            .events
            .iter()
            .filter_map(|e| match e.event {
                RunEvent::TurnStart { turn } => Some(turn),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        if turn as usize >= 3 * (kills + 1) {
            let _ = service.kill();
            let _ = service.wait();
            kills += 1;
            service = spawn(KILL, ports, &mock.url(), &log);
        } else {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    ended(&seen, &server).await;
    let _ = service.kill();
    let _ = service.wait();

    let seen = seen.lock().unwrap();
    assert!(seen.missed.is_empty(), "missed: {:?}", seen.missed);
    assert!(
        seen.connections > KILLS,
        "the subscriber reconnected {} times",
        seen.connections - 1
    );
    let seqs: Vec<u64> = seen.events.iter().map(|e| e.seq).collect();
    assert_eq!(
        seqs,
        (0..seqs.len() as u64).collect::<Vec<_>>(),
        "a sequence number twice, or a gap"
    );
    let turns: Vec<u32> = seen
        .events
        .iter()
        .filter_map(|e| match e.event {
            RunEvent::TurnStart { turn } => Some(turn),
            _ => None,
        })
        .collect();
    assert_eq!(turns, (1..=STEPS as u32 + 1).collect::<Vec<_>>());
    let results = seen
        .events
        .iter()
        .filter(|e| matches!(e.event, RunEvent::ToolResult { .. }))
        .count();
    assert_eq!(results, STEPS, "one result per call");
    let tail: Vec<&RunEvent> = seen.events.iter().rev().take(8).map(|e| &e.event).collect();
    assert!(matches!(tail[0], RunEvent::Done { .. }), "{tail:?}");
    let closing = format!("All {STEPS} steps of k1 are observed.");
    assert!(
        tail.iter()
            .any(|e| matches!(e, RunEvent::Response { message, .. } if message.text() == closing)),
        "the run's final answer is not among its last events: {tail:?}"
    );
    eprintln!(
        "{} events over {} connections, {KILLS} kills",
        seqs.len(),
        seen.connections
    );
}

/// The review model: the first answer calls `send` (reviewed), the next says "sent".
fn review_model(request: &RecordedRequest) -> MockResponse {
    let messages = request.body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if messages.iter().any(|m| m["role"] == "tool") {
        return MockResponse::text("sent");
    }
    let args = json!({ "thread": "r1", "text": "hi" }).to_string();
    MockResponse::tool_calls(vec![ToolCall::new("s0", "send", args)])
}

const REVIEW: &str = "a_paused_runs_events_reach_the_caller_before_the_decision";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_runs_events_reach_the_caller_before_the_decision() {
    if std::env::var_os("AGENTRY_RESTATE_CHILD").is_some() {
        return service::child().await;
    }
    let dir = tempfile::tempdir().unwrap();
    let server = server::Server::start(dir.path());
    let mock = MockServer::with_handler(review_model).await;
    let log = dir.path().join("effects.log");
    let ports = (server::free_port(), server::free_port());
    let mut service = spawn(REVIEW, ports, &mock.url(), &log);
    server
        .register(&format!("http://127.0.0.1:{}", ports.0))
        .await;
    let ingress = server.ingress_url();

    let invocation = send_run(&ingress, "r1").await;
    let seen = Arc::new(Mutex::new(Seen::default()));
    tokio::spawn(follow(ports.1, invocation, Arc::clone(&seen)));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let paused = seen.lock().unwrap().events.iter().any(|e| {
            matches!(&e.event, RunEvent::Paused { reviews } if reviews.len() == 1
                && reviews[0].call_id == "s0")
        });
        if paused {
            break;
        }
        assert!(Instant::now() < deadline, "no paused event");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!seen.lock().unwrap().ended, "the stream ended at the pause");
    let decided = reqwest::Client::new()
        .post(format!("{ingress}/Threads/r1/decide"))
        .json(&json!({ "s0": { "decision": "approve" } }))
        .send()
        .await
        .unwrap();
    assert!(decided.status().is_success());
    ended(&seen, &server).await;
    let _ = service.kill();
    let _ = service.wait();

    let seen = seen.lock().unwrap();
    let seqs: Vec<u64> = seen.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>());
    let after: Vec<&RunEvent> = seen
        .events
        .iter()
        .map(|e| &e.event)
        .skip_while(|e| !matches!(e, RunEvent::Paused { .. }))
        .collect();
    assert!(
        after.iter().any(
            |e| matches!(e, RunEvent::ToolResult { call, error: None, .. }
            if call.id == "s0")
        ),
        "the approved call's result after the pause: {after:?}"
    );
    assert!(
        matches!(after.last(), Some(RunEvent::Done { .. })),
        "{after:?}"
    );
}
