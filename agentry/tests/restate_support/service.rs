//! The service under test: a 12-step recorder agent as the virtual object `Threads`, run in
//! a child process (the test binary again, with `AGENTRY_RESTATE_CHILD` set) so the tests
//! can SIGKILL it. Its model is a `MockServer` in the parent; tools append to a side-effect
//! log.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use agentry::middleware::{DecisionKind, HumanInTheLoop};
use agentry::prelude::*;
use agentry::restate::{PendingReview, RestateAgent, SavedThread};
use rand::Rng;
use restate_sdk::prelude::{Endpoint, HttpServer};

/// Model answers that call tools, before the final one.
pub const STEPS: usize = 12;

pub struct Log {
    path: PathBuf,
}

impl Log {
    /// A log appending to `path`.
    pub fn new(path: PathBuf) -> Self {
        Log { path }
    }

    fn append(&self, thread: &str, what: &str, step: u32) {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .expect("the side-effect log");
        let line = format!("{thread} {what} {step}\n");
        file.write_all(line.as_bytes())
            .expect("write the side-effect log");
    }
}

async fn jitter() {
    let ms = rand::rng().random_range(0..4);
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

/// Record a step (not idempotent: runs at most once).
///
/// # Arguments
/// * `thread` - The thread.
/// * `step` - The step.
/// * `serial` - The model request's serial number.
#[tool]
async fn record(thread: String, step: u32, serial: u64, log: Context<Log>) -> String {
    let _ = serial;
    jitter().await;
    log.append(&thread, "record", step);
    jitter().await;
    format!("recorded {step}")
}

/// Observe a step (idempotent: may run again after a crash).
///
/// # Arguments
/// * `thread` - The thread.
/// * `step` - The step.
#[tool(idempotent)]
async fn observe(thread: String, step: u32, log: Context<Log>) -> String {
    jitter().await;
    log.append(&thread, "observe", step);
    jitter().await;
    format!("observed {step}")
}

/// Send a message (reviewed by a human).
///
/// # Arguments
/// * `thread` - The thread.
/// * `text` - What to send.
#[tool]
async fn send(thread: String, text: String, log: Context<Log>) -> String {
    log.append(&thread, "send", text.len() as u32);
    format!("sent {text}")
}

/// You record steps.
#[agent(tools(record, observe, send), context = Log)]
pub struct Recorder;

type Agent = RestateAgent<Recorder, agentry::output::TextOutput, Log, ()>;

/// The recorder agent on `model`, `send` under review.
pub fn recorder(
    model: agentry::providers::openai::OpenAiModel,
) -> agentry::agent::Agent<Recorder, agentry::output::TextOutput, Log, ()> {
    Recorder::builder(model)
        .max_turns(STEPS as u32 + 4)
        .middleware(
            HumanInTheLoop::new().review("send", DecisionKind::Approve | DecisionKind::Reject),
        )
        .build()
}

agentry::restate_object! {
    struct Threads(Agent);
}

/// The child: serves `Threads` on `RESTATE_SERVICE_PORT` until killed.
pub async fn child() {
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} is set"));
    let model = agentry::providers::openai::OpenAiModel::builder("mock")
        .base_url(var("RESTATE_MODEL_URL"))
        .api_key("sk-mock-key-0000")
        .build()
        .unwrap();
    let agent = recorder(model);
    let log = Log {
        path: var("RESTATE_LOG").into(),
    };
    let mut restate = RestateAgent::new(agent, log);
    if let Ok(ms) = std::env::var("RESTATE_REVIEW_TIMEOUT_MS") {
        restate = restate.review_timeout(Duration::from_millis(ms.parse().unwrap()));
    }
    // With `RESTATE_EVENTS_PORT`, runs publish their events, served over SSE on that port.
    if let Ok(events) = std::env::var("RESTATE_EVENTS_PORT") {
        let hub = agentry::restate::EventHub::new();
        restate = restate.events(hub.clone());
        let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{events}"))
            .await
            .expect("bind the events port");
        tokio::spawn(async move { axum::serve(listener, hub.router()).await });
    }
    let threads = Threads(restate);
    let addr = format!("127.0.0.1:{}", var("RESTATE_SERVICE_PORT"));
    let listener =
        agentry::restate::listener(addr.parse().unwrap()).expect("bind the service port");
    HttpServer::new(Endpoint::builder().bind(threads).build())
        .serve(listener)
        .await;
}

/// Starts the service process: the test binary `test` again, serving on `port`.
pub fn spawn_service(
    test: &str,
    port: u16,
    model_url: &str,
    log: &std::path::Path,
) -> std::process::Child {
    spawn_service_with(test, port, model_url, log, &[])
}

/// [`spawn_service`] with more environment variables.
pub fn spawn_service_with(
    test: &str,
    port: u16,
    model_url: &str,
    log: &std::path::Path,
    env: &[(&str, String)],
) -> std::process::Child {
    std::process::Command::new(std::env::current_exe().unwrap())
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env("AGENTRY_RESTATE_CHILD", "1")
        .env("RESTATE_SERVICE_PORT", port.to_string())
        .env("RESTATE_MODEL_URL", model_url)
        .env("RESTATE_LOG", log)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn the service process")
}

/// Waits until the service listens on `port`.
pub fn wait_listening(port: u16) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the service never listened"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Runs `input` on `thread` through the ingress and waits for the reply. The idempotency key
/// is the thread and input: sending it again attaches to the same invocation.
pub async fn call_run(
    ingress: String,
    thread: String,
    input: String,
) -> Result<serde_json::Value, String> {
    let response = reqwest::Client::new()
        .post(format!("{ingress}/Threads/{thread}/run"))
        .header("idempotency-key", format!("{thread}/{input}"))
        .json(&input)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status();
    let body = response.text().await.map_err(|e| e.to_string())?;
    if !status.is_success() {
        return Err(format!("{status}: {body}"));
    }
    serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))
}

/// The thread as the object saved it.
pub async fn saved_thread(ingress: &str, thread: &str) -> SavedThread {
    let response = reqwest::Client::new()
        .post(format!("{ingress}/Threads/{thread}/thread"))
        .send()
        .await
        .unwrap();
    let body = response.text().await.unwrap();
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{thread}: {e}: {body}"))
}

/// The review `thread` waits for, if any.
pub async fn pending(ingress: &str, thread: &str) -> Option<PendingReview> {
    let response = reqwest::Client::new()
        .post(format!("{ingress}/Threads/{thread}/pending"))
        .send()
        .await
        .ok()?;
    let body = response.text().await.ok()?;
    serde_json::from_str(&body).ok().flatten()
}
