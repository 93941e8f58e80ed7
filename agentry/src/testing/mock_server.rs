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

use futures::future::BoxFuture;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::providers::openai::{OpenAiModel, OpenAiModelBuilder};

mod response;
mod wire;

pub use response::MockResponse;
use wire::{is_route, render};

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
    pub fn with_script(
        responses: impl IntoIterator<Item = MockResponse>,
    ) -> BoxFuture<'static, MockServer> {
        // Not an `async fn` (nor `with_handler`): the returned future's type does not name the
        // argument, so one of the wrong type is one error at the call.
        Box::pin(MockServer::launch(responses.into_iter().collect(), None))
    }

    /// A server answering every request with `handler(request)`.
    pub fn with_handler(
        handler: impl Fn(&RecordedRequest) -> MockResponse + Send + Sync + 'static,
    ) -> BoxFuture<'static, MockServer> {
        Box::pin(MockServer::launch(VecDeque::new(), Some(Box::new(handler))))
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
