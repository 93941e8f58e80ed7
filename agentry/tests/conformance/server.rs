#![allow(dead_code)] // Shared by several test binaries, each using a part.

//! An in-process HTTP server on 127.0.0.1 that answers from a script of raw replies and
//! records every request, for any provider's wire format.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use serde_json::Value;

/// One scripted answer: a status, headers and a body sent in chunks.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub content_type: &'static str,
    pub chunks: Vec<Bytes>,
}

impl Reply {
    /// A JSON body.
    pub fn json(status: u16, body: &Value) -> Self {
        Reply {
            status,
            headers: Vec::new(),
            content_type: "application/json",
            chunks: vec![Bytes::from(body.to_string())],
        }
    }

    /// A 200 SSE body, split every 7 bytes (inside lines, inside UTF-8 characters) to
    /// exercise the decoders.
    pub fn sse(text: String) -> Self {
        let chunks = text
            .as_bytes()
            .chunks(7)
            .map(Bytes::copy_from_slice)
            .collect();
        Reply {
            status: 200,
            headers: Vec::new(),
            content_type: "text/event-stream",
            chunks,
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// `event: <name>\ndata: <json>\n\n`, or a bare `data:` line when `name` is empty.
pub fn sse_event(name: &str, data: &Value) -> String {
    if name.is_empty() {
        format!("data: {data}\n\n")
    } else {
        format!("event: {name}\ndata: {data}\n\n")
    }
}

/// A request the server received.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub path: String,
    pub query: Option<String>,
    pub headers: HeaderMap,
    pub body: Value,
}

#[derive(Default)]
struct Shared {
    script: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<Recorded>>,
}

/// The server; it stops when dropped.
pub struct Server {
    addr: SocketAddr,
    shared: Arc<Shared>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl Server {
    pub async fn start(script: Vec<Reply>) -> Server {
        let shared = Arc::new(Shared::default());
        shared.script.lock().unwrap().extend(script);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await
                .unwrap();
        });
        Server {
            addr,
            shared,
            _stop: tx,
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The only request, or a panic naming how many there were.
    pub fn request(&self) -> Recorded {
        let all = self.requests();
        assert_eq!(all.len(), 1, "expected exactly one request");
        all.into_iter().next().unwrap()
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    shared.requests.lock().unwrap().push(Recorded {
        path: uri.path().to_owned(),
        query: uri.query().map(str::to_owned),
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    });
    let Some(reply) = shared.script.lock().unwrap().pop_front() else {
        return Response::builder()
            .status(StatusCode::INTERNAL_SERVER_ERROR)
            .body(Body::from("the test script has no more replies"))
            .unwrap();
    };
    let mut response = Response::builder()
        .status(reply.status)
        .header("content-type", reply.content_type);
    for (name, value) in &reply.headers {
        response = response.header(name, value);
    }
    let stream = futures::stream::iter(reply.chunks.into_iter().map(Ok::<_, std::io::Error>));
    response.body(Body::from_stream(stream)).unwrap()
}
