//! What serving an agent over HTTP (`agentry::serve`) adds to a run.
//!
//! - **Latency to first token**: in each round, one run through the server (an HTTP POST to
//!   `/threads/{id}/runs/ai-sdk`, timed until the first `text-delta` chunk arrives at the
//!   client) and one run of the same agent's own `Thread::stream` in the same process (timed
//!   until its first `TextDelta`), in alternating order. Both runs are in a thread (the
//!   server's runs always are), so both load and save SQLite checkpoints; the difference is
//!   the HTTP request, auth, ownership check, body parsing, encoding and SSE. The model is
//!   `MockServer` on loopback (the real OpenAI client, a streamed answer). Reported: the
//!   median of the per-round ratios, and the medians of both.
//! - **Memory per open stream**: `STREAMS` runs held open at once through the server (each
//!   waiting for a model answer that comes after a minute), RSS before and after; then the
//!   same number of the agent's own streams, held open the same way, without HTTP. RSS is the
//!   whole process: server, client sockets and the mock model server.
//!
//! Run: `cargo bench --bench serve` (`ROUNDS`, default 200; `STREAMS`, default 500).

use std::sync::Arc;
use std::time::{Duration, Instant};

use agentry::agent::{Agent, AgentBuilder, AgentEvent, NoTools};
use agentry::output::TextOutput;
use agentry::persist::SqliteCheckpointer;
use agentry::serve::{Server, anonymous};
use agentry::testing::{MockResponse, MockServer, RecordedRequest};
use axum::serve::ListenerExt;
use futures::StreamExt;

type Chat = Agent<NoTools, TextOutput, (), ()>;

const ANSWER: &str = "Hello there: this answer streams in small pieces, as a model's would.";

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

async fn agent(model_url: &MockServer, dir: &std::path::Path, name: &str) -> Arc<Chat> {
    let checkpointer = SqliteCheckpointer::open(dir.join(format!("{name}.db")))
        .await
        .unwrap();
    Arc::new(
        AgentBuilder::<_, _, (), ()>::new(model_url.openai_model("mock"), NoTools)
            .checkpointer(checkpointer)
            .build(),
    )
}

async fn serve(agent: Arc<Chat>) -> (String, Server<NoTools, TextOutput, (), ()>) {
    let server = Server::new(agent, anonymous::<()>()).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    // Each SSE event is its own small write: without TCP_NODELAY, Nagle's algorithm holds the
    // second one until the client's delayed ACK (40 ms on Linux).
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let app = server.router();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, server)
}

/// Time to the first text through the server; the rest of the stream is read too.
async fn through_server(client: &reqwest::Client, url: &str, thread: &str) -> Duration {
    let start = Instant::now();
    let mut response = client
        .post(format!("{url}/threads/{thread}/runs/ai-sdk"))
        .json(&serde_json::json!({ "message": "Hi" }))
        .send()
        .await
        .unwrap();
    let mut seen = Vec::new();
    let mut first = None;
    while let Some(chunk) = response.chunk().await.unwrap() {
        seen.extend_from_slice(&chunk);
        if first.is_none() && memchr_text_delta(&seen) {
            first = Some(start.elapsed());
        }
    }
    first.expect("the stream has text")
}

fn memchr_text_delta(bytes: &[u8]) -> bool {
    bytes.windows(12).any(|w| w == b"\"text-delta\"")
}

/// Time to the first text of the agent's own thread stream.
async fn direct(agent: &Chat, thread: &str) -> Duration {
    let start = Instant::now();
    let thread = agent.thread(thread);
    let mut stream = thread.stream("Hi", ());
    let mut first = None;
    while let Some(event) = stream.next().await {
        if first.is_none() && matches!(event.unwrap(), AgentEvent::TextDelta { .. }) {
            first = Some(start.elapsed());
        }
    }
    first.expect("the stream has text")
}

async fn latency(rounds: usize) {
    let dir = scratch();
    let model = MockServer::with_handler(|_: &RecordedRequest| {
        // One write: the mock server does not set TCP_NODELAY, and split writes would wait
        // for delayed ACKs on both paths alike.
        MockResponse::text(ANSWER)
    })
    .await;
    let agent = agent(&model, &dir, "latency").await;
    let (url, _server) = serve(Arc::clone(&agent)).await;
    let client = reqwest::Client::new();
    // Warm up both paths (connections, SQLite pages, allocator).
    for i in 0..20 {
        through_server(&client, &url, &format!("warm-s{i}")).await;
        direct(&agent, &format!("warm-d{i}")).await;
    }
    paired(
        rounds,
        "a new thread each round (the owner is recorded)",
        |i| (format!("s{i}"), format!("d{i}")),
        &client,
        &url,
        &agent,
    )
    .await;
    paired(
        rounds,
        "one thread continued each round (it grows alike on both paths)",
        |_| ("s-cont".to_string(), "d-cont".to_string()),
        &client,
        &url,
        &agent,
    )
    .await;
}

async fn paired(
    rounds: usize,
    what: &str,
    threads: impl Fn(usize) -> (String, String),
    client: &reqwest::Client,
    url: &str,
    agent: &Chat,
) {
    let (mut served, mut own, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..rounds {
        let (server_thread, own_thread) = threads(i);
        let (s, d) = if i % 2 == 0 {
            let s = through_server(client, url, &server_thread).await;
            (s, direct(agent, &own_thread).await)
        } else {
            let d = direct(agent, &own_thread).await;
            (through_server(client, url, &server_thread).await, d)
        };
        served.push(s.as_secs_f64() * 1e6);
        own.push(d.as_secs_f64() * 1e6);
        ratios.push(s.as_secs_f64() / d.as_secs_f64());
    }
    let (s, d, r) = (median(&mut served), median(&mut own), median(&mut ratios));
    println!("serve/first_token, {what}: {rounds} paired rounds against MockServer on loopback");
    println!("  through the server (HTTP, AI SDK stream): median {s:.0} µs");
    println!("  the agent's own Thread::stream:           median {d:.0} µs");
    println!(
        "  ratio server / own (median of rounds):    {r:.2} (+{:.0} µs)",
        s - d
    );
}

async fn memory(streams: usize) {
    let dir = scratch();
    // Each model answer comes after a minute: every run waits, its stream open.
    let model = MockServer::with_handler(|_: &RecordedRequest| {
        MockResponse::text(ANSWER).delay(Duration::from_secs(60))
    })
    .await;
    let agent = agent(&model, &dir, "memory").await;
    let (url, server) = serve(Arc::clone(&agent)).await;
    let client = reqwest::Client::new();
    // One run of each kind first, so what is made lazily (clients, pools, runtime pieces) is
    // in the baseline.
    let warm = open(&client, &url, "warm").await;
    let warm_own = own(&agent, "warm-own".into());
    wait_for(&model, 2).await;
    // The agent's own streams (each a task polling `Thread::stream`), all waiting for the
    // model. Kept while the server's are measured, so neither reuses the other's memory.
    let before = rss_kib();
    let tasks: Vec<_> = (0..streams)
        .map(|i| own(&agent, format!("own{i}")))
        .collect();
    wait_for(&model, streams + 2).await;
    let per_own = rss_kib().saturating_sub(before) as f64 / streams as f64;
    // The same number through the server.
    let before = rss_kib();
    let mut held = Vec::with_capacity(streams);
    for i in 0..streams {
        held.push(open(&client, &url, &format!("m{i}")).await);
    }
    wait_for(&model, 2 * streams + 2).await;
    assert_eq!(server.running(), streams + 1);
    let per_served = rss_kib().saturating_sub(before) as f64 / streams as f64;
    println!("serve/memory: {streams} streams open at once, each waiting for its model answer");
    println!(
        "  through the server: {per_served:.1} KiB RSS per open stream (server, its client socket and the model request)"
    );
    println!(
        "  the agent's own Thread::stream in a task: {per_own:.1} KiB per open stream (with the model request)"
    );
    println!(
        "  added by serving: {:.1} KiB per open stream",
        per_served - per_own
    );
    drop((held, warm));
    for task in tasks.into_iter().chain([warm_own]) {
        task.abort();
    }
}

/// A task running the agent's own stream on thread `id`.
fn own(agent: &Arc<Chat>, id: String) -> tokio::task::JoinHandle<()> {
    let agent = Arc::clone(agent);
    tokio::spawn(async move {
        let thread = agent.thread(id);
        let mut stream = thread.stream("Hi", ());
        while stream.next().await.is_some() {}
    })
}

/// Waits until the model has received `n` requests.
async fn wait_for(model: &MockServer, n: usize) {
    while model.request_count() < n {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
}

/// A fresh folder for the benchmark's SQLite files.
fn scratch() -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = base_dir().join(n.to_string());
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn base_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("agentry-serve-bench-{}", std::process::id()))
}

fn main() {
    // Criterion-style arguments (`--bench`) are ignored: this bench prints its own report.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Memory first, in a fresh process: RSS grows only by what the open streams hold (after
    // the latency rounds, the allocator would hand freed memory back out).
    rt.block_on(memory(env("STREAMS", 500)));
    rt.block_on(latency(env("ROUNDS", 200)));
    let _ = std::fs::remove_dir_all(base_dir());
}

async fn open(client: &reqwest::Client, url: &str, thread: &str) -> reqwest::Response {
    let mut response = client
        .post(format!("{url}/threads/{thread}/runs/ai-sdk"))
        .json(&serde_json::json!({ "message": "Hi" }))
        .send()
        .await
        .unwrap();
    // The `start` chunk: the run is going.
    let chunk = response.chunk().await.unwrap();
    assert!(chunk.is_some());
    response
}
