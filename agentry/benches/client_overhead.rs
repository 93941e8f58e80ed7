//! Client CPU per request (request build + send + decode) against the local mock server:
//! `OpenAiModel::invoke` against a hand-written reqwest + serde_json client doing the same
//! request. The server runs on its own thread; the client runs on a current-thread runtime on
//! the bench thread, so the bench thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`) is the client's
//! whole cost (hyper's connection task included). Wall time per request is measured too.
//!
//! Run: `cargo bench -p agentry --features testing --bench client_overhead`.

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use agentry::http::RetryPolicy;
use agentry::model::{ChatModel, ChatRequest};
use agentry::testing::{MockResponse, MockServer};
use agentry::tool::DefinitionRef;
use agentry::{Message, ToolDefinition};
use criterion::Criterion;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

const SYSTEM: &str = "You are a concise travel assistant. Answer in one sentence.";
const USER: &str = "What is the weather like in Paris today?";
const ANSWER: &str = "It is 18°C and clear in Paris today, a good day for a walk along the Seine.";

fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID is supported on Linux.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

// ------------------------------------------------------------------ hand-written client

#[derive(Serialize)]
struct RawRequest<'a> {
    model: &'a str,
    messages: [RawMessage<'a>; 2],
    tools: [RawTool<'a>; 1],
    temperature: f64,
}
#[derive(Serialize)]
struct RawMessage<'a> {
    role: &'a str,
    content: &'a str,
}
#[derive(Serialize)]
struct RawTool<'a> {
    r#type: &'a str,
    function: RawFunction<'a>,
}
#[derive(Serialize)]
struct RawFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}
#[derive(Deserialize)]
struct RawResponse {
    choices: Vec<RawChoice>,
    usage: RawUsage,
}
#[derive(Deserialize)]
struct RawChoice {
    message: RawAnswer,
    finish_reason: String,
}
#[derive(Deserialize)]
struct RawAnswer {
    content: Option<String>,
}
#[derive(Deserialize)]
struct RawUsage {
    prompt_tokens: u64,
    completion_tokens: u64,
}

async fn hand_written(client: &reqwest::Client, url: &str, params: &Value) -> String {
    let body = RawRequest {
        model: "gpt-4o-mini",
        messages: [
            RawMessage {
                role: "system",
                content: SYSTEM,
            },
            RawMessage {
                role: "user",
                content: USER,
            },
        ],
        tools: [RawTool {
            r#type: "function",
            function: RawFunction {
                name: "get_weather",
                description: "Current weather for a city.",
                parameters: params,
            },
        }],
        temperature: 0.2,
    };
    let bytes = client
        .post(url)
        .header("authorization", "Bearer sk-mock-key-0000")
        .header("content-type", "application/json")
        .body(serde_json::to_vec(&body).unwrap())
        .send()
        .await
        .unwrap()
        .error_for_status()
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let mut r: RawResponse = serde_json::from_slice(&bytes).unwrap();
    assert!(
        r.usage.prompt_tokens + r.usage.completion_tokens > 0
            && r.choices[0].finish_reason == "stop"
    );
    r.choices.swap_remove(0).message.content.unwrap_or_default()
}

// ------------------------------------------------------------------ the SDK

async fn sdk(model: &dyn ChatModel, tool: &DefinitionRef) -> String {
    let mut req = ChatRequest::new(vec![Message::system(SYSTEM), Message::user(USER)]);
    req.tools = vec![tool.clone()].into();
    req.temperature = Some(0.2);
    model.invoke(req).await.unwrap().message.text()
}

fn main() {
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = server_rt.block_on(MockServer::with_handler(|_| MockResponse::text(ANSWER)));
    let client_rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    let params = json!({
        "type": "object",
        "properties": { "city": { "type": "string", "description": "City name." } },
        "required": ["city"]
    });
    let tool: DefinitionRef = Arc::new(ToolDefinition::new(
        "get_weather",
        "Current weather for a city.",
        params.clone(),
        false,
    ))
    .into();
    let model = server
        .openai_builder("gpt-4o-mini")
        .retry_policy(RetryPolicy::none())
        .build()
        .unwrap();
    let raw = reqwest::Client::builder().build().unwrap();
    let url = format!("{}/chat/completions", server.url());

    // Same request, same answer.
    assert_eq!(client_rt.block_on(sdk(&model, &tool)), ANSWER);
    assert_eq!(
        client_rt.block_on(hand_written(&raw, &url, &params)),
        ANSWER
    );
    let sent = server.requests();
    let (a, b) = (&sent[0].body, &sent[1].body);
    assert_eq!(a, b, "both clients send the same body");

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("client_cpu");
    group.bench_function("agentry", |bench| {
        bench.iter_custom(|iters| {
            let start = thread_cpu();
            for _ in 0..iters {
                client_rt.block_on(sdk(&model, &tool));
            }
            thread_cpu() - start
        })
    });
    group.bench_function("hand_written", |bench| {
        bench.iter_custom(|iters| {
            let start = thread_cpu();
            for _ in 0..iters {
                client_rt.block_on(hand_written(&raw, &url, &params));
            }
            thread_cpu() - start
        })
    });
    group.finish();
    let mut group = c.benchmark_group("client_wall");
    group.bench_function("agentry", |bench| {
        bench.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                client_rt.block_on(sdk(&model, &tool));
            }
            start.elapsed()
        })
    });
    group.bench_function("hand_written", |bench| {
        bench.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                client_rt.block_on(hand_written(&raw, &url, &params));
            }
            start.elapsed()
        })
    });
    group.finish();
    c.final_summary();
    support::print_ratio(
        "client_cpu",
        "agentry",
        "hand_written",
        1.2,
        "criterion medians, bench-thread CPU time per request",
    );
    support::print_ratio(
        "client_wall",
        "agentry",
        "hand_written",
        1.2,
        "criterion medians, wall time per request",
    );
    let ratio = support::interleaved_ratio(
        || {
            client_rt.block_on(sdk(&model, &tool));
        },
        || {
            client_rt.block_on(hand_written(&raw, &url, &params));
        },
        thread_cpu,
        41,
        200,
    );
    println!(
        "RATIO client_cpu (interleaved, median of 41 rounds of 200 requests): {ratio:.3}x (target <= 1.2x)"
    );
    drop(server);
    drop(server_rt);
}
