//! What the [`MockServer`](super::MockServer) answers on: its routes (chat completions and
//! the embedding endpoints) and the rendering of a [`MockResponse`] in OpenAI's documented
//! wire format, whole or as SSE, split and paced as scripted.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use super::RecordedRequest;
use super::response::{Kind, MockAnswer, MockResponse, Split};
use crate::usage::Usage;

/// The paths answered: chat completions, and the embedding endpoints (OpenAI's
/// `/embeddings`, Gemini's `:batchEmbedContents` and `:embedContent`).
pub(super) fn is_route(path: &str) -> bool {
    path.ends_with("/chat/completions")
        || path.ends_with("/embeddings")
        || path.ends_with(":batchEmbedContents")
        || path.ends_with(":embedContent")
}

pub(super) fn render(
    response: MockResponse,
    request: &RecordedRequest,
    unfinished: &Arc<std::sync::atomic::AtomicUsize>,
) -> Response {
    let model = request.body["model"]
        .as_str()
        .unwrap_or("mock-model")
        .to_owned();
    let mut headers = response.headers.clone();
    let bytes: Bytes = match &response.kind {
        Kind::Json(v) => {
            headers.push(("content-type".into(), "application/json".into()));
            Bytes::from(v.to_string())
        }
        Kind::Raw(b) => b.clone(),
        Kind::Sse { payloads, done } => sse_body(payloads.iter().map(String::as_str), *done),
        Kind::Answer(a) if request.is_stream() => {
            headers.push(("content-type".into(), "text/event-stream".into()));
            let include_usage = request.body["stream_options"]["include_usage"] == true;
            let chunks = stream_chunks(a, &model, include_usage);
            let payloads: Vec<String> = chunks.iter().map(Value::to_string).collect();
            sse_body(payloads.iter().map(String::as_str), !a.stream_cut)
        }
        Kind::Answer(a) => {
            headers.push(("content-type".into(), "application/json".into()));
            Bytes::from(completion(a, &model).to_string())
        }
    };
    let mut builder = Response::builder()
        .status(StatusCode::from_u16(response.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR));
    let mut seen = std::collections::HashSet::new();
    for (name, value) in headers.iter().rev() {
        // Later (explicit) headers win over the defaults added above.
        if seen.insert(name.clone()) {
            builder = builder.header(name.as_str(), value.as_str());
        }
    }
    let body = match response.split {
        Split::Whole => Body::from(bytes),
        Split::Every(n) => {
            let pieces: Vec<Bytes> = (0..bytes.len())
                .step_by(n)
                .map(|i| bytes.slice(i..(i + n).min(bytes.len())))
                .collect();
            paced(pieces, response.pace, unfinished)
        }
        Split::At(offsets) => {
            let mut pieces = Vec::new();
            let mut start = 0;
            for end in offsets.into_iter().chain([bytes.len()]) {
                let end = end.clamp(start, bytes.len());
                if end > start {
                    pieces.push(bytes.slice(start..end));
                }
                start = end;
            }
            paced(
                pieces,
                Some(response.pace.unwrap_or(Duration::from_millis(2))),
                unfinished,
            )
        }
        Split::Events => {
            let mut pieces = Vec::new();
            let mut start = 0;
            while start < bytes.len() {
                let end = bytes[start..]
                    .windows(2)
                    .position(|w| w == b"\n\n")
                    .map_or(bytes.len(), |i| start + i + 2);
                pieces.push(bytes.slice(start..end));
                start = end;
            }
            paced(pieces, response.pace, unfinished)
        }
    };
    builder
        .body(body)
        .unwrap_or_else(|_| Response::new(Body::from("mock server: bad response headers")))
}

/// A body sent piece by piece, yielding (or sleeping `pause`) between pieces so the client
/// tends to receive them separately; the first piece goes at once. Dropped before its last piece, it counts in
/// `unfinished`.
fn paced(
    pieces: Vec<Bytes>,
    pause: Option<Duration>,
    unfinished: &Arc<std::sync::atomic::AtomicUsize>,
) -> Body {
    /// The pieces left, counted as unfinished when dropped with some left.
    struct Left {
        pieces: std::vec::IntoIter<Bytes>,
        unfinished: Arc<std::sync::atomic::AtomicUsize>,
    }
    impl Drop for Left {
        fn drop(&mut self) {
            if self.pieces.len() > 0 {
                self.unfinished
                    .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        }
    }
    let left = Left {
        pieces: pieces.into_iter(),
        unfinished: Arc::clone(unfinished),
    };
    let stream = futures::stream::unfold((left, true), move |(mut left, first)| async move {
        if !first {
            match pause {
                Some(pause) => tokio::time::sleep(pause).await,
                None => tokio::task::yield_now().await,
            }
        }
        let piece = left.pieces.next()?;
        Some((Ok::<_, std::io::Error>(piece), (left, false)))
    });
    Body::from_stream(stream)
}

fn sse_body<'a>(payloads: impl Iterator<Item = &'a str>, done: bool) -> Bytes {
    let mut out = String::new();
    for p in payloads {
        for line in p.split('\n') {
            out.push_str("data: ");
            out.push_str(line);
            out.push('\n');
        }
        out.push('\n');
    }
    if done {
        out.push_str("data: [DONE]\n\n");
    }
    Bytes::from(out)
}

fn usage_json(u: &Usage) -> Value {
    json!({
        "prompt_tokens": u.input_tokens,
        "completion_tokens": u.output_tokens,
        "total_tokens": u.input_tokens + u.output_tokens,
        "prompt_tokens_details": { "cached_tokens": u.cached_input_tokens, "audio_tokens": 0 },
        "completion_tokens_details": { "reasoning_tokens": u.reasoning_tokens, "audio_tokens": 0,
            "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0 }
    })
}

fn finish_of(a: &MockAnswer) -> &str {
    a.finish_reason
        .as_deref()
        .unwrap_or(if a.tool_calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        })
}

/// The documented non-streamed `chat.completion` object.
fn completion(a: &MockAnswer, model: &str) -> Value {
    let mut message =
        json!({ "role": "assistant", "content": a.text, "refusal": a.refusal, "annotations": [] });
    if let Some(r) = &a.reasoning {
        message["reasoning_content"] = json!(r);
    }
    if !a.tool_calls.is_empty() {
        message["tool_calls"] = a
            .tool_calls
            .iter()
            .map(|c| json!({ "id": c.id, "type": "function", "function": { "name": c.name, "arguments": c.arguments } }))
            .collect();
    }
    json!({
        "id": "chatcmpl-mock",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": a.model.as_deref().unwrap_or(model),
        "choices": [{ "index": 0, "message": message, "logprobs": null, "finish_reason": finish_of(a) }],
        "usage": usage_json(&a.usage),
        "service_tier": "default",
        "system_fingerprint": "fp_mock"
    })
}

/// The documented `chat.completion.chunk` sequence for an answer.
fn stream_chunks(a: &MockAnswer, model: &str, include_usage: bool) -> Vec<Value> {
    let model = a.model.as_deref().unwrap_or(model);
    let chunk = |delta: Value, finish: Option<&str>| {
        let mut c = json!({
            "id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 1_700_000_000,
            "model": model, "system_fingerprint": "fp_mock",
            "choices": [{ "index": 0, "delta": delta, "logprobs": null, "finish_reason": finish }]
        });
        if include_usage {
            c["usage"] = Value::Null;
        }
        c
    };
    let mut out = vec![chunk(
        json!({ "role": "assistant", "content": "", "refusal": null }),
        None,
    )];
    if let Some(r) = &a.reasoning {
        for piece in pieces(r, 8) {
            out.push(chunk(json!({ "reasoning_content": piece }), None));
        }
    }
    if let Some(t) = &a.text {
        for piece in pieces(t, 4) {
            out.push(chunk(json!({ "content": piece }), None));
        }
    }
    if let Some(r) = &a.refusal {
        for piece in pieces(r, 6) {
            out.push(chunk(json!({ "refusal": piece }), None));
        }
    }
    for (i, c) in a.tool_calls.iter().enumerate() {
        out.push(chunk(
            json!({ "tool_calls": [{ "index": i, "id": c.id, "type": "function",
                "function": { "name": c.name, "arguments": "" } }] }),
            None,
        ));
        for piece in pieces(&c.arguments, 5) {
            out.push(chunk(
                json!({ "tool_calls": [{ "index": i, "function": { "arguments": piece } }] }),
                None,
            ));
        }
    }
    if a.stream_cut {
        return out;
    }
    out.push(chunk(json!({}), Some(finish_of(a))));
    if include_usage {
        out.push(json!({
            "id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 1_700_000_000,
            "model": model, "system_fingerprint": "fp_mock", "choices": [], "usage": usage_json(&a.usage)
        }));
    }
    out
}

/// `text` in pieces of about `n` characters.
fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}
