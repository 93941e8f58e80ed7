//! [`MockServer`]: an in-process, scripted OpenAI-compatible HTTP server — a **test double**.
//!
//! It listens on 127.0.0.1 on a random port and answers `POST /v1/chat/completions` (and
//! `/chat/completions`; and the embedding endpoints, `/v1/embeddings` and Gemini's
//! `:batchEmbedContents`, with [`MockResponse::json`] answers) from a queue of [`MockResponse`]s or from a function of the request.
//! Answers built with [`MockResponse::text`] or [`MockResponse::tool_calls`] are rendered in
//! the documented wire format, as one JSON body or as SSE chunks when the request has
//! `"stream": true` (with the usage chunk when it asks for `stream_options.include_usage`).
//! Every request is recorded so tests can assert on the bodies that were sent.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use agentry::model::{ChatModel, ChatRequest};
//! use agentry::testing::{MockResponse, MockServer};
//! use agentry::Message;
//!
//! let server = MockServer::with_script([MockResponse::text("Hello!")]).await;
//! let model = server.openai_model("gpt-4o-mini");
//! let answer = model.invoke(ChatRequest::new(vec![Message::user("Hi")])).await.unwrap();
//! assert_eq!(answer.message.text(), "Hello!");
//! assert_eq!(server.requests()[0].body["messages"][0]["content"], "Hi");
//! # }
//! ```
//!
//! Test suites can also call [`deny_real_network`](crate::http::deny_real_network) (re-exported
//! here) so that a model accidentally pointed at a real provider fails instead of sending.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::message::ToolCall;
use crate::providers::openai::{OpenAiModel, OpenAiModelBuilder};
use crate::usage::Usage;

type Handler = Box<dyn Fn(&RecordedRequest) -> MockResponse + Send + Sync>;

/// A request the server received.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    /// The HTTP method.
    pub method: String,
    /// The path, e.g. `/v1/chat/completions`.
    pub path: String,
    /// The headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`Value::Null` when it is not JSON).
    pub body: Value,
    /// The body as received.
    pub raw_body: Bytes,
}

impl RecordedRequest {
    /// The value of a header (`name` in any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the request asked for a streamed answer.
    pub fn is_stream(&self) -> bool {
        self.body["stream"] == true
    }
}

/// One scripted answer.
#[derive(Clone, Debug)]
pub struct MockResponse {
    kind: Kind,
    status: u16,
    headers: Vec<(String, String)>,
    split: Split,
    delay: Option<Duration>,
    /// The pause between the pieces of a split body (default 2 ms).
    pace: Option<Duration>,
}

#[derive(Clone, Debug)]
enum Kind {
    Answer(Box<MockAnswer>),
    Json(Value),
    Sse { payloads: Vec<String>, done: bool },
    Raw(Bytes),
}

#[derive(Clone, Debug, Default)]
struct MockAnswer {
    text: Option<String>,
    reasoning: Option<String>,
    refusal: Option<String>,
    tool_calls: Vec<ToolCall>,
    finish_reason: Option<String>,
    usage: Usage,
    model: Option<String>,
    stream_cut: bool,
}

#[derive(Clone, Debug, Default)]
enum Split {
    #[default]
    Whole,
    Every(usize),
    At(Vec<usize>),
    /// One SSE event (up to and with its blank line) at a time, `pace` apart.
    Events,
}

impl MockResponse {
    fn answer(answer: MockAnswer) -> Self {
        MockResponse {
            kind: Kind::Answer(Box::new(answer)),
            status: 200,
            headers: Vec::new(),
            split: Split::Whole,
            delay: None,
            pace: None,
        }
    }

    /// A text answer (`finish_reason: stop`, usage 10 in / 5 out unless changed).
    pub fn text(text: impl Into<String>) -> Self {
        MockResponse::answer(MockAnswer {
            text: Some(text.into()),
            usage: default_usage(),
            ..MockAnswer::default()
        })
    }

    /// An answer calling tools (`finish_reason: tool_calls`).
    pub fn tool_calls(calls: Vec<ToolCall>) -> Self {
        MockResponse::answer(MockAnswer {
            tool_calls: calls,
            finish_reason: Some("tool_calls".into()),
            usage: default_usage(),
            ..MockAnswer::default()
        })
    }

    /// Adds text the model says before its tool calls (or before the text it already has),
    /// as a model that announces what it is about to do: `tool_calls(..).with_text("Let me
    /// check.")`. Other responses are left as they are.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        if let Kind::Answer(a) = &mut self.kind {
            let text = text.into();
            a.text = Some(match a.text.take() {
                Some(rest) => text + &rest,
                None => text,
            });
        }
        self
    }

    /// A refusal (`refusal` set, `finish_reason: stop`).
    pub fn refusal(text: impl Into<String>) -> Self {
        MockResponse::answer(MockAnswer {
            refusal: Some(text.into()),
            usage: default_usage(),
            ..MockAnswer::default()
        })
    }

    /// An error answer with an OpenAI-style body `{"error": {"message", "type", "param", "code"}}`.
    pub fn error(
        status: u16,
        message: &str,
        kind: &str,
        param: Option<&str>,
        code: Option<&str>,
    ) -> Self {
        MockResponse::json(json!({
            "error": { "message": message, "type": kind, "param": param, "code": code }
        }))
        .status(status)
    }

    /// A JSON body, as is (status 200 unless changed).
    pub fn json(body: Value) -> Self {
        MockResponse {
            kind: Kind::Json(body),
            status: 200,
            headers: Vec::new(),
            split: Split::Whole,
            delay: None,
            pace: None,
        }
    }

    /// An SSE body of these chunks (each sent as `data: <json>\n\n`), then `data: [DONE]`.
    pub fn sse(chunks: Vec<Value>) -> Self {
        MockResponse::sse_data(chunks.iter().map(Value::to_string).collect())
    }

    /// An SSE body of these `data:` payloads, sent as they are, then `data: [DONE]`.
    pub fn sse_data(payloads: Vec<String>) -> Self {
        MockResponse {
            kind: Kind::Sse {
                payloads,
                done: true,
            },
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            split: Split::Whole,
            delay: None,
            pace: None,
        }
    }

    /// A body of exactly these bytes, with `content-type: text/event-stream`.
    pub fn raw_sse(body: impl Into<Bytes>) -> Self {
        MockResponse {
            kind: Kind::Raw(body.into()),
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            split: Split::Whole,
            delay: None,
            pace: None,
        }
    }

    /// The HTTP status.
    pub fn status(mut self, status: u16) -> Self {
        self.status = status;
        self
    }

    /// An extra response header, e.g. `retry-after`.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers
            .push((name.into().to_ascii_lowercase(), value.into()));
        self
    }

    /// The usage reported (answers only).
    pub fn usage(mut self, usage: Usage) -> Self {
        if let Kind::Answer(a) = &mut self.kind {
            a.usage = usage;
        }
        self
    }

    /// The `finish_reason` reported (answers only).
    pub fn finish_reason(mut self, reason: impl Into<String>) -> Self {
        if let Kind::Answer(a) = &mut self.kind {
            a.finish_reason = Some(reason.into());
        }
        self
    }

    /// Reasoning text, sent as `reasoning_content` (answers only).
    pub fn reasoning(mut self, text: impl Into<String>) -> Self {
        if let Kind::Answer(a) = &mut self.kind {
            a.reasoning = Some(text.into());
        }
        self
    }

    /// The model name reported (answers only).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        if let Kind::Answer(a) = &mut self.kind {
            a.model = Some(model.into());
        }
        self
    }

    /// For a streamed answer or SSE chunks: end the body before the `finish_reason` and
    /// `[DONE]`, as a dropped connection would.
    pub fn cut_off(mut self) -> Self {
        match &mut self.kind {
            Kind::Answer(a) => a.stream_cut = true,
            Kind::Sse { done, .. } => *done = false,
            _ => {}
        }
        self
    }

    /// For SSE chunks: leave out the final `data: [DONE]`.
    pub fn without_done(mut self) -> Self {
        if let Kind::Sse { done, .. } = &mut self.kind {
            *done = false;
        }
        self
    }

    /// Waits this long before answering (to exercise client timeouts).
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = Some(delay);
        self
    }

    /// Sends the body in pieces of `n` bytes (so boundaries fall inside lines and characters).
    pub fn split_every(mut self, n: usize) -> Self {
        self.split = Split::Every(n.max(1));
        self
    }

    /// Sends the body in pieces ending at these byte offsets, pausing between them.
    pub fn split_at(mut self, offsets: Vec<usize>) -> Self {
        self.split = Split::At(offsets);
        self
    }

    /// Pauses this long between the pieces of the body. With
    /// [`split_at`](MockResponse::split_at) or `split_every`, between those pieces (2 ms when
    /// not set); otherwise a streamed body goes one SSE event at a time: a model that types
    /// at a speed a person (or a browser test) can watch — a streamed text answer sends about
    /// four characters per event. The first piece goes at once. A client that hangs up before
    /// the last piece shows in [`MockServer::unfinished_bodies`].
    pub fn pace(mut self, pause: Duration) -> Self {
        self.pace = Some(pause);
        if matches!(self.split, Split::Whole) {
            self.split = Split::Events;
        }
        self
    }
}

fn default_usage() -> Usage {
    Usage {
        input_tokens: 10,
        output_tokens: 5,
        requests: 1,
        ..Usage::default()
    }
}

/// An in-process OpenAI-compatible server on 127.0.0.1 — a test double. It stops when dropped.
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
}

struct Shared {
    refuse_tools: std::sync::atomic::AtomicBool,
    script: Mutex<VecDeque<MockResponse>>,
    handler: Option<Handler>,
    requests: Mutex<Vec<RecordedRequest>>,
    /// Bodies dropped before their last piece was sent (the client hung up).
    unfinished: Arc<std::sync::atomic::AtomicUsize>,
}

impl MockServer {
    /// A server with an empty script (push answers with [`MockServer::push`]).
    pub async fn start() -> MockServer {
        MockServer::launch(VecDeque::new(), None).await
    }

    /// A server answering with these responses, in order; when they run out it answers 500.
    pub async fn with_script(responses: impl IntoIterator<Item = MockResponse>) -> MockServer {
        MockServer::launch(responses.into_iter().collect(), None).await
    }

    /// A server answering every request with `handler(request)`.
    pub async fn with_handler(
        handler: impl Fn(&RecordedRequest) -> MockResponse + Send + Sync + 'static,
    ) -> MockServer {
        MockServer::launch(VecDeque::new(), Some(Box::new(handler))).await
    }

    async fn launch(script: VecDeque<MockResponse>, handler: Option<Handler>) -> MockServer {
        let shared = Arc::new(Shared {
            refuse_tools: std::sync::atomic::AtomicBool::new(false),
            script: Mutex::new(script),
            handler,
            requests: Mutex::new(Vec::new()),
            unfinished: Arc::default(),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0 for the mock server");
        let addr = listener.local_addr().expect("mock server address");
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let serve = axum::serve(listener, app).with_graceful_shutdown(async {
                let _ = rx.await;
            });
            if let Err(e) = serve.await {
                tracing::warn!(error = %e, "mock server stopped");
            }
        });
        MockServer {
            addr,
            shared,
            shutdown: Some(tx),
        }
    }

    /// Behave like a server without tool support (a model served without a tool-calling chat
    /// template): from now on a request whose body carries a non-empty `tools` array is
    /// answered 400 (`invalid_request_error`, `param: "tools"`) without consuming the script
    /// or calling the handler. Requests without tools are answered as usual.
    pub fn refuse_tools(&self) -> &Self {
        self.shared
            .refuse_tools
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self
    }

    /// The base URL to give a model: `http://127.0.0.1:<port>/v1`.
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Queues another answer.
    pub fn push(&self, response: MockResponse) {
        lock(&self.shared.script).push_back(response);
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// How many answers sent in pieces ([`MockResponse::split_at`],
    /// [`MockResponse::split_every`]) were dropped before their last piece: the client
    /// closed the connection (a cancelled request). The server notices when it next writes.
    pub fn unfinished_bodies(&self) -> usize {
        self.shared
            .unfinished
            .load(std::sync::atomic::Ordering::SeqCst)
    }

    /// How many requests were received.
    pub fn request_count(&self) -> usize {
        lock(&self.shared.requests).len()
    }

    /// A builder for a model talking to this server, with the key `sk-mock-key-0000` and
    /// fast retries (1 ms backoff, no jitter): [`mock_model_builder`](super::mock_model_builder)
    /// at this server's [`url`](MockServer::url). A program that has only the URL (another
    /// process) calls that function, or [`mock_model`](super::mock_model), itself.
    pub fn openai_builder(&self, model: &str) -> OpenAiModelBuilder {
        super::mock_model_builder(self.url(), model)
    }

    /// A model talking to this server (see [`MockServer::openai_builder`]).
    pub fn openai_model(&self, model: &str) -> OpenAiModel {
        self.openai_builder(model)
            .build()
            .expect("a model for the mock server")
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

impl std::fmt::Debug for MockServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The paths answered: chat completions, and the embedding endpoints (OpenAI's
/// `/embeddings`, Gemini's `:batchEmbedContents` and `:embedContent`).
fn is_route(path: &str) -> bool {
    path.ends_with("/chat/completions")
        || path.ends_with("/embeddings")
        || path.ends_with(":batchEmbedContents")
        || path.ends_with(":embedContent")
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let request = RecordedRequest {
        method: method.to_string(),
        path: uri.path().to_owned(),
        headers: headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        raw_body: body,
    };
    lock(&shared.requests).push(request.clone());

    if method != Method::POST || !is_route(&request.path) {
        return render(
            MockResponse::error(
                404,
                &format!("mock server: no route for {} {}", method, request.path),
                "invalid_request_error",
                None,
                None,
            ),
            &request,
            &shared.unfinished,
        );
    }
    let carries_tools = request
        .body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|tools| !tools.is_empty());
    if carries_tools
        && shared
            .refuse_tools
            .load(std::sync::atomic::Ordering::SeqCst)
    {
        return render(
            MockResponse::error(
                400,
                "mock server: this model does not support tools",
                "invalid_request_error",
                Some("tools"),
                None,
            ),
            &request,
            &shared.unfinished,
        );
    }
    let response = match &shared.handler {
        Some(handler) => handler(&request),
        None => lock(&shared.script).pop_front().unwrap_or_else(|| {
            MockResponse::error(
                500,
                "mock server: the script has no more responses",
                "server_error",
                None,
                None,
            )
        }),
    };
    if let Some(delay) = response.delay {
        tokio::time::sleep(delay).await;
    }
    render(response, &request, &shared.unfinished)
}

fn render(
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
