//! What Restate's journal costs: a 12-step run (12 answers calling two tools, then a final
//! answer: 13 model requests, 24 tool calls) through a real `restate-server` — the service in
//! this process, invoked through the engine's ingress, every model request and tool call a
//! journaled step — against the same agent run in process without the engine (the baseline,
//! same model server, same tools). One run each after a warm-up; prints the ratio.
//!
//! The server is the pinned npm package, installed under `target/restate-server` on first
//! use (like the tests); its log is fsynced as it runs by default.
//!
//! The service listens through `agentry::restate::listener` (`TCP_NODELAY` on its
//! connections); `RESTATE_NAGLE=1` measures it bound as `HttpServer::listen_and_serve` binds,
//! with Nagle's algorithm on (each journaled step then can wait for a delayed acknowledgement).
//!
//! Run: `cargo bench -p agentry --features restate,testing --bench restate_overhead`

#[path = "../tests/restate_support/server.rs"]
#[allow(dead_code)]
mod server;

use std::time::{Duration, Instant};

use agentry::prelude::*;
use agentry::restate::{RestateAgent, RunReply};
use agentry::testing::{MockResponse, MockServer, RecordedRequest};
use restate_sdk::prelude::{Endpoint, HandlerResult, HttpServer, Json, ObjectContext};
use serde_json::json;

const STEPS: usize = 12;
/// Measured runs of each kind (after one warm-up run each).
const RUNS: u32 = 10;

/// Record a step (not idempotent).
///
/// # Arguments
/// * `step` - The step.
#[tool]
fn record(step: u32) -> String {
    format!("recorded {step}")
}

/// Observe a step.
///
/// # Arguments
/// * `step` - The step.
#[tool(idempotent)]
fn observe(step: u32) -> String {
    format!("observed {step}")
}

/// You record steps.
#[agent(tools(record, observe))]
struct Recorder;

fn model(request: &RecordedRequest) -> MockResponse {
    let answers = request.body["messages"]
        .as_array()
        .map_or(0, |m| m.iter().filter(|m| m["role"] == "assistant").count());
    if answers >= STEPS {
        return MockResponse::text("done");
    }
    let args = json!({ "step": answers }).to_string();
    MockResponse::tool_calls(vec![
        ToolCall::new(format!("r{answers}"), "record", args.clone()),
        ToolCall::new(format!("o{answers}"), "observe", args),
    ])
}

struct Threads(RestateAgent<Recorder, agentry::output::TextOutput, (), ()>);

#[restate_sdk::object]
impl Threads {
    #[handler]
    async fn run(
        &self,
        ctx: ObjectContext<'_>,
        input: Json<String>,
    ) -> HandlerResult<Json<RunReply>> {
        self.0.run(&ctx, input.into_inner()).await.map(Json)
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::Server::start(dir.path());
    let mock = MockServer::with_handler(model).await;
    let in_process = Recorder::builder(mock.openai_model("mock"))
        .max_turns(STEPS as u32 + 2)
        .build();
    let journaled = Recorder::builder(mock.openai_model("mock"))
        .max_turns(STEPS as u32 + 2)
        .build();
    let port = server::free_port();
    let service = Threads(RestateAgent::new(journaled, ()));
    let addr = format!("127.0.0.1:{port}").parse().unwrap();
    // `TCP_NODELAY` on the service's connections (`agentry::restate::listener`);
    // `RESTATE_NAGLE=1` serves as `HttpServer::listen_and_serve` does, without it.
    let listener = if std::env::var_os("RESTATE_NAGLE").is_some() {
        tokio::net::TcpListener::bind(addr).await.unwrap()
    } else {
        agentry::restate::listener(addr).unwrap()
    };
    tokio::spawn(HttpServer::new(Endpoint::builder().bind(service).build()).serve(listener));
    server.register(&format!("http://127.0.0.1:{port}")).await;
    let ingress = server.ingress_url();
    let client = reqwest::Client::new();

    let baseline = async || {
        let run = in_process.run("go", ()).await.unwrap();
        assert_eq!(run.output, "done");
    };
    let mut thread = 0;
    let mut restate = async || {
        thread += 1;
        let reply: RunReply = client
            .post(format!("{ingress}/Threads/b{thread}/run"))
            .json(&"go")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(reply.output, "done");
    };
    baseline().await;
    restate().await;
    let started = Instant::now();
    for _ in 0..RUNS {
        baseline().await;
    }
    let base = started.elapsed() / RUNS;
    let started = Instant::now();
    for _ in 0..RUNS {
        restate().await;
    }
    let journal = started.elapsed() / RUNS;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "12-step run, mean of {RUNS}: in process {:.2} ms, journaled by restate-server {:.2} ms: {:.1}x",
        ms(base),
        ms(journal),
        journal.as_secs_f64() / base.as_secs_f64()
    );
}
