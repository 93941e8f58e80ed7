//! SSE decoding of a recorded-shape Chat Completions stream: the SDK's decoder (SSE parser,
//! typed chunks, event assembly) with what `OpenAiModel` applies to its streams on (the default
//! response caps, the tool call id checks, the API key searched in every read and redacted)
//! against a hand-written line splitter with `serde_json::from_str` per chunk doing the same
//! assembly; beside them the SDK's decoder with no caps and no key (`decode_chat_stream`).
//!
//! Run: `cargo bench -p agentry --features testing --bench sse_decode` (prints MB/s and the
//! ratio); instruction counts: see `main`.

mod support;

use agentry::http::{ApiKey, ResponseLimits};
use agentry::model::{EventStream, StreamEvent};
use agentry::providers::openai::{decode_chat_stream, decode_chat_stream_with};
use bytes::Bytes;
use criterion::{Criterion, Throughput};
use serde::Deserialize;
use serde_json::json;

/// The shape OpenAI sends: a role chunk, ~400 content deltas of a few characters, two tool
/// calls streamed in fragments, the finish chunk, the usage chunk, `[DONE]`.
fn recorded_body() -> String {
    let words = [
        "The", " weather", " in", " Zürich", " is", " mild", ",", " 18", "°C", " with", " light",
        " wind", ".",
    ];
    let base = |delta: serde_json::Value, finish: serde_json::Value| {
        json!({"id":"chatcmpl-BRg5ZQ0Yp0QqXr3mVh8rV1b9sFkLm","object":"chat.completion.chunk","created":1745843461,
               "model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0392822090",
               "choices":[{"index":0,"delta":delta,"logprobs":null,"finish_reason":finish}],"usage":null})
    };
    let mut chunks = vec![base(
        json!({"role":"assistant","content":"","refusal":null}),
        json!(null),
    )];
    for i in 0..400 {
        chunks.push(base(
            json!({"content": words[i % words.len()]}),
            json!(null),
        ));
    }
    for (i, (id, name)) in [
        ("call_8dhG2kLx0", "get_weather"),
        ("call_Qm3vT9aZ1", "get_time"),
    ]
    .iter()
    .enumerate()
    {
        chunks.push(base(json!({"tool_calls":[{"index":i,"id":id,"type":"function","function":{"name":name,"arguments":""}}]}), json!(null)));
        for frag in ["{\"", "city", "\":\"", "Zür", "ich", "\"}"] {
            chunks.push(base(
                json!({"tool_calls":[{"index":i,"function":{"arguments":frag}}]}),
                json!(null),
            ));
        }
    }
    chunks.push(base(json!({}), json!("tool_calls")));
    chunks.push(json!({"id":"chatcmpl-BRg5ZQ0Yp0QqXr3mVh8rV1b9sFkLm","object":"chat.completion.chunk","created":1745843461,
        "model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0392822090","choices":[],
        "usage":{"prompt_tokens":512,"completion_tokens":431,"total_tokens":943,
                 "prompt_tokens_details":{"cached_tokens":384,"audio_tokens":0},
                 "completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}));
    let mut body = String::new();
    for c in chunks {
        body.push_str("data: ");
        body.push_str(&c.to_string());
        body.push_str("\n\n");
    }
    body.push_str("data: [DONE]\n\n");
    body
}

/// The body as network reads deliver it: pieces of `size` bytes.
fn pieces(body: &Bytes, size: usize) -> Vec<Bytes> {
    (0..body.len())
        .step_by(size)
        .map(|i| body.slice(i..(i + size).min(body.len())))
        .collect()
}

/// The key the guarded side searches for (never in the body, as with a real provider).
const KEY: &str = "sk-proj-bench-4Qv8Zt2LmX9wR7nP3kD6sY1aH5cJ0eF";

/// The SDK's decoder as `OpenAiModel` runs it: default caps, the key redacted.
fn sdk_decode(pieces: &[Bytes]) -> (usize, usize) {
    let key = ApiKey::new(KEY);
    completed(decode_chat_stream_with(
        body_stream(pieces),
        "gpt-4o-mini",
        ResponseLimits::default(),
        Some(key),
    ))
}

/// The SDK's decoder alone: no caps, no key.
fn sdk_decode_bare(pieces: &[Bytes]) -> (usize, usize) {
    completed(decode_chat_stream(body_stream(pieces), "gpt-4o-mini"))
}

fn body_stream(
    pieces: &[Bytes],
) -> impl futures::Stream<Item = Result<Bytes, agentry::model::ModelError>> + Send + 'static {
    futures::StreamExt::map(futures::stream::iter(pieces.to_vec()), Ok)
}

/// The text length and call count of a stream's completed answer.
fn completed(stream: EventStream) -> (usize, usize) {
    let events = futures::executor::block_on(futures::StreamExt::collect::<Vec<_>>(stream));
    match events.last() {
        Some(Ok(StreamEvent::Completed { response })) => (
            response.message.text().len(),
            response.message.tool_calls.len(),
        ),
        other => panic!("{other:?}"),
    }
}

// ------------------------------------------------------------------ baseline

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<RawUsage>,
}
#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Delta,
    #[serde(default)]
    finish_reason: Option<String>,
}
#[derive(Deserialize, Default)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<CallDelta>>,
}
#[derive(Deserialize)]
struct CallDelta {
    index: usize,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FnDelta>,
}
#[derive(Deserialize)]
struct FnDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}
#[derive(Deserialize)]
struct RawUsage {
    prompt_tokens: u64,
}

/// A hand-written client's decoder: split lines, parse each `data:` payload, accumulate.
fn baseline_decode(pieces: &[Bytes]) -> (usize, usize) {
    let mut buf: Vec<u8> = Vec::new();
    let mut text = String::new();
    let mut calls: Vec<(String, String, String)> = Vec::new();
    let mut finish = None;
    let mut prompt = 0;
    for piece in pieces {
        buf.extend_from_slice(piece);
        let mut start = 0;
        while let Some(nl) = buf[start..].iter().position(|&b| b == b'\n') {
            let line = std::str::from_utf8(&buf[start..start + nl]).expect("utf-8");
            start += nl + 1;
            let Some(data) = line.strip_prefix("data: ") else {
                continue;
            };
            if data == "[DONE]" {
                break;
            }
            let chunk: Chunk = serde_json::from_str(data).expect("chunk");
            for c in chunk.choices {
                if let Some(t) = c.delta.content {
                    text.push_str(&t);
                }
                for d in c.delta.tool_calls.unwrap_or_default() {
                    if calls.len() <= d.index {
                        calls.resize(d.index + 1, Default::default());
                    }
                    let call = &mut calls[d.index];
                    if let Some(id) = d.id {
                        call.0 = id;
                    }
                    if let Some(f) = d.function {
                        if let Some(n) = f.name {
                            call.1 = n;
                        }
                        if let Some(a) = f.arguments {
                            call.2.push_str(&a);
                        }
                    }
                }
                if c.finish_reason.is_some() {
                    finish = c.finish_reason;
                }
            }
            if let Some(u) = chunk.usage {
                prompt = u.prompt_tokens;
            }
        }
        buf.drain(..start);
    }
    assert!(finish.is_some() && prompt > 0);
    (text.len(), calls.len())
}

fn main() {
    let body = Bytes::from(recorded_body());
    // For instruction counts under callgrind, free of the shared machine's noise:
    // `SSE_ONLY=agentry|bare|hand SSE_RUNS=N valgrind --tool=callgrind <bench binary>` decodes the
    // body N times on one side, read in 1460-byte pieces (`SSE_PIECE` sets another size); the
    // difference of the totals for two values of N, divided by the difference of N, is the
    // cost of one decode.
    if let Ok(side) = std::env::var("SSE_ONLY") {
        let env = |name: &str, default: usize| {
            std::env::var(name)
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(default)
        };
        let parts = pieces(&body, env("SSE_PIECE", 1460));
        for _ in 0..env("SSE_RUNS", 100) {
            std::hint::black_box(match side.as_str() {
                "hand" => baseline_decode(std::hint::black_box(&parts)),
                "bare" => sdk_decode_bare(std::hint::black_box(&parts)),
                _ => sdk_decode(std::hint::black_box(&parts)),
            });
        }
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    for (label, size) in [("mss_1460", 1460), ("read_16k", 16 * 1024)] {
        let parts = pieces(&body, size);
        assert_eq!(
            sdk_decode(&parts),
            baseline_decode(&parts),
            "both decoders agree"
        );
        assert_eq!(sdk_decode_bare(&parts), baseline_decode(&parts));
        let group_name = format!("sse_decode_{label}");
        let mut group = c.benchmark_group(&group_name);
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_function("agentry", |b| {
            b.iter(|| sdk_decode(std::hint::black_box(&parts)))
        });
        group.bench_function("agentry_bare", |b| {
            b.iter(|| sdk_decode_bare(std::hint::black_box(&parts)))
        });
        group.bench_function("hand_written", |b| {
            b.iter(|| baseline_decode(std::hint::black_box(&parts)))
        });
        group.finish();
    }
    c.final_summary();
    println!("body: {} bytes", body.len());
    for (label, size) in [("mss_1460", 1460), ("read_16k", 16 * 1024)] {
        let group = format!("sse_decode_{label}");
        if let (Some(ours), Some(base)) = (
            support::median_ns(&group, "agentry"),
            support::median_ns(&group, "hand_written"),
        ) {
            println!(
                "{group}: agentry {:.1} MB/s, hand_written {:.1} MB/s",
                body.len() as f64 / ours * 1e3,
                body.len() as f64 / base * 1e3
            );
        }
        support::print_ratio(
            &group,
            "agentry",
            "hand_written",
            1.15,
            "criterion medians, wall time",
        );
        let parts = pieces(&body, size);
        let ratio = support::interleaved_ratio(
            || {
                std::hint::black_box(sdk_decode(std::hint::black_box(&parts)));
            },
            || {
                std::hint::black_box(baseline_decode(std::hint::black_box(&parts)));
            },
            support::wall,
            41,
            50,
        );
        println!("RATIO {group} (interleaved, median of 41 rounds): {ratio:.3}x (target <= 1.15x)");
    }
}
