//! Hostile servers cannot grow a client past its caps (issue 10, item 3).
//!
//! Each scenario runs in a child process (this test binary re-executed with
//! `AGENTRY_CAPS_SCENARIO` set), so that its peak resident memory is its own: a server on
//! 127.0.0.1 in the child sends an oversized or near-endless answer (96 MiB), the model has small
//! caps, and the child reports the error and how much its peak RSS grew during the request.
//! The parent asserts the typed error naming the cap and a growth under the cap plus a small
//! constant. Without the caps each scenario grows the child by the whole 96 MiB.

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentry::Message;
use agentry::http::{ResponseLimit, ResponseLimits};
use agentry::model::{ChatModel, ChatRequest, ModelError};
use agentry::providers::openai::OpenAiModel;
use futures::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

mod peak_rss;
use peak_rss::peak_rss;

const SCENARIO_ENV: &str = "AGENTRY_CAPS_SCENARIO";
/// What the server is willing to send (far more than any cap below).
const SERVED: usize = 96 << 20;
/// The cap each scenario sets on what it tests.
const CAP: usize = 8 << 20;
/// Allowed growth beyond the cap: buffers, allocator slack, the server's own chunk.
const SLACK: usize = 16 << 20;

struct Scenario {
    name: &'static str,
    limit: ResponseLimit,
    stream: bool,
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "endless_tool_call_arguments",
        limit: ResponseLimit::ToolCallBytes,
        stream: true,
    },
    Scenario {
        name: "endless_tool_calls",
        limit: ResponseLimit::ToolCalls,
        stream: true,
    },
    Scenario {
        name: "one_huge_sse_line",
        limit: ResponseLimit::EventBytes,
        stream: true,
    },
    Scenario {
        name: "endless_text",
        limit: ResponseLimit::StreamBytes,
        stream: true,
    },
    Scenario {
        name: "huge_body",
        limit: ResponseLimit::BodyBytes,
        stream: false,
    },
];

fn main() {
    match std::env::var(SCENARIO_ENV) {
        Ok(name) => child(&name),
        Err(_) => parent(),
    }
}

fn parent() {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut failures = Vec::new();
    for s in SCENARIOS {
        let started = Instant::now();
        let mut child = Command::new(&exe)
            .env(SCENARIO_ENV, s.name)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("re-running the test binary");
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if started.elapsed() > Duration::from_secs(120) {
                let _ = child.kill();
                panic!("{}: the child did not finish in 120 s", s.name);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut out = String::new();
        std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
        assert!(status.success(), "{}: the child failed: {out}", s.name);
        let line = out
            .lines()
            .find_map(|l| l.strip_prefix("RESULT "))
            .unwrap_or_else(|| panic!("{}: no result from the child: {out}", s.name));
        let (growth, error) = line.split_once(' ').unwrap();
        let growth: usize = growth.parse().unwrap();
        let mib = |n: usize| n as f64 / (1 << 20) as f64;
        println!(
            "{}: peak RSS grew {:.1} MiB (cap {:.0} MiB, served {:.0} MiB) in {:?}: {error}",
            s.name,
            mib(growth),
            mib(CAP),
            mib(SERVED),
            started.elapsed()
        );
        if !error.contains(s.limit.name()) {
            failures.push(format!(
                "{}: expected the {} error, got: {error}",
                s.name, s.limit
            ));
        }
        if growth > CAP + SLACK {
            failures.push(format!(
                "{}: peak RSS grew {:.1} MiB, over the cap {:.0} MiB + {:.0} MiB",
                s.name,
                mib(growth),
                mib(CAP),
                mib(SLACK)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("caps_memory: {} scenarios ok", SCENARIOS.len());
}

fn child(name: &str) {
    let scenario = SCENARIOS
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("unknown scenario {name}"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (growth, error) = runtime.block_on(async {
        let base = serve(name).await;
        // Only the cap under test is lowered; the others keep their defaults.
        let d = ResponseLimits::default();
        let limits = match scenario.limit {
            ResponseLimit::ToolCallBytes => d.max_tool_call_bytes(CAP),
            ResponseLimit::EventBytes => d.max_event_bytes(CAP),
            ResponseLimit::StreamBytes => d.max_stream_bytes(CAP),
            ResponseLimit::BodyBytes => d.max_body_bytes(CAP),
            _ => d,
        };
        let model = OpenAiModel::compatible("m", base)
            .max_retries(0)
            .response_limits(limits)
            .build()
            .unwrap();
        // Warm up the runtime and the allocator, then reset the peak to the current RSS.
        tokio::time::sleep(Duration::from_millis(10)).await;
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let before = peak_rss();
        let request = ChatRequest::new(vec![Message::user("hi")]);
        let error = if scenario.stream {
            let mut events = model.stream(request);
            let mut error = None;
            while let Some(event) = events.next().await {
                if let Err(e) = event {
                    error = Some(e);
                }
            }
            error
        } else {
            model.invoke(request).await.err()
        };
        let growth = peak_rss().saturating_sub(before);
        let error = error.map_or_else(|| "no error".to_owned(), |e: ModelError| e.to_string());
        (growth, error)
    });
    let mut out = std::io::stdout().lock();
    writeln!(out, "RESULT {growth} {error}").unwrap();
}

/// One answer of `SERVED` bytes for the scenario, delimited by closing the connection.
async fn serve(name: &str) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let name = name.to_owned();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut buf = vec![0u8; 64 << 10];
        // The request is small; one read holds its head.
        let _ = socket.read(&mut buf).await;
        let json = name == "huge_body";
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: {}\r\nconnection: close\r\n\r\n",
            if json {
                "application/json"
            } else {
                "text/event-stream"
            }
        );
        if socket.write_all(head.as_bytes()).await.is_err() {
            return;
        }
        let filler = "a".repeat(64 << 10);
        let mut sent = 0usize;
        let mut k = 0usize;
        let first: String = match name.as_str() {
            "endless_tool_call_arguments" => "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]}}]}\n\n".into(),
            "one_huge_sse_line" => "data: ".into(),
            "huge_body" => "{\"choices\":[{\"index\":0,\"message\":{\"content\":\"".into(),
            _ => String::new(),
        };
        if socket.write_all(first.as_bytes()).await.is_err() {
            return;
        }
        while sent < SERVED {
            let piece = match name.as_str() {
                "endless_tool_call_arguments" => format!(
                    "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":0,\"function\":{{\"arguments\":\"{filler}\"}}}}]}}}}]}}\n\n"
                ),
                "endless_tool_calls" => format!(
                    "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{k},\"id\":\"c{k}\",\"function\":{{\"name\":\"f\",\"arguments\":\"{{}}\"}}}}]}}}}]}}\n\n"
                ),
                "endless_text" => format!(
                    "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{filler}\"}}}}]}}\n\n"
                ),
                _ => filler.clone(),
            };
            k += 1;
            sent += piece.len();
            if socket.write_all(piece.as_bytes()).await.is_err() {
                return; // The client gave up: what the caps are for.
            }
        }
        let last = match name.as_str() {
            "huge_body" => "\"},\"finish_reason\":\"stop\"}]}",
            "one_huge_sse_line" => "\n\n",
            _ => {
                "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
            }
        };
        let _ = socket.write_all(last.as_bytes()).await;
    });
    format!("http://{addr}/v1")
}
