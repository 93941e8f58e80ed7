//! OpenAI Chat Completions errors: status and body → typed error, retries for retryable
//! errors only, the server's wait honoured, timeouts, connection and decode failures.

use std::time::Duration;

use agentry::Message;
use agentry::http::RetryPolicy;
use agentry::model::{ChatModel, ChatRequest, ModelError, StreamEvent};
use agentry::providers::openai::OpenAiModel;
use agentry::testing::{MockResponse, MockServer};
use futures::StreamExt;

fn ask() -> ChatRequest {
    ChatRequest::new(vec![Message::user("hi")])
}

fn err(
    status: u16,
    message: &str,
    kind: &str,
    param: Option<&str>,
    code: Option<&str>,
) -> MockResponse {
    MockResponse::error(status, message, kind, param, code)
}

/// An answer, whether it is retried, and a check of the error it becomes.
type Case = (MockResponse, bool, fn(&ModelError) -> bool);

#[tokio::test]
async fn error_bodies_map_to_typed_errors() {
    // (answer, whether it is retried, the expected error)
    let cases: Vec<Case> = vec![
        (err(401, "Incorrect API key provided", "invalid_request_error", None, Some("invalid_api_key")), false,
            |e| matches!(e, ModelError::Authentication { message } if message == "Incorrect API key provided")),
        (err(403, "Project does not have access to model", "invalid_request_error", None, Some("model_not_found")), false,
            |e| matches!(e, ModelError::PermissionDenied { .. })),
        (err(404, "The model `gpt-9` does not exist", "invalid_request_error", Some("model"), Some("model_not_found")), false,
            |e| matches!(e, ModelError::NotFound { message } if message.contains("gpt-9"))),
        (err(400, "Invalid value for 'temperature': 3 is above the maximum 2", "invalid_request_error", Some("temperature"), Some("invalid_value")), false,
            |e| matches!(e, ModelError::InvalidRequest { param: Some(p), message } if p == "temperature" && message.contains("maximum"))),
        (err(400, "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", "invalid_request_error", Some("messages"), Some("context_length_exceeded")), false,
            |e| matches!(e, ModelError::ContextLengthExceeded { .. })),
        // vLLM-style body, no code: recognised from the message.
        (MockResponse::json(serde_json::json!({ "object": "error", "message": "This model's maximum context length is 4096 tokens.", "type": "BadRequestError", "code": 400 })).status(400), false,
            |e| matches!(e, ModelError::ContextLengthExceeded { .. })),
        (err(422, "Unprocessable", "invalid_request_error", Some("tools[0]"), None), false,
            |e| matches!(e, ModelError::InvalidRequest { param: Some(p), .. } if p == "tools[0]")),
        (err(429, "You exceeded your current quota", "insufficient_quota", None, Some("insufficient_quota")), false,
            |e| matches!(e, ModelError::PermissionDenied { .. })),
        // Not JSON at all.
        (MockResponse::raw_sse("<html>Bad Gateway</html>").status(502).header("content-type", "text/html"), true,
            |e| matches!(e, ModelError::Server { status: 502, message } if message.contains("Bad Gateway"))),
    ];
    for (i, (response, retryable, check)) in cases.into_iter().enumerate() {
        let server = MockServer::with_handler(move |_| response.clone()).await;
        let model = server
            .openai_builder("gpt-4o-mini")
            .max_retries(2)
            .build()
            .unwrap();
        let e = model.invoke(ask()).await.unwrap_err();
        assert!(check(&e), "case {i}: {e:?}");
        let expected = if retryable { 3 } else { 1 };
        assert_eq!(server.request_count(), expected, "case {i}: {e}");
        // The streamed path maps the same way.
        let events: Vec<_> = model.stream(ask()).collect().await;
        assert!(
            matches!(events.as_slice(), [Err(e2)] if e2 == &e),
            "case {i}: {events:?}"
        );
    }
}

#[tokio::test]
async fn retries_429_and_5xx_until_success() {
    let server = MockServer::with_script([
        err(
            429,
            "Rate limit reached",
            "requests",
            None,
            Some("rate_limit_exceeded"),
        )
        .header("retry-after-ms", "5"),
        err(500, "The server had an error", "server_error", None, None),
        err(503, "Overloaded", "server_error", None, None),
        MockResponse::text("finally"),
    ])
    .await;
    let model = server
        .openai_builder("gpt-4o-mini")
        .max_retries(3)
        .build()
        .unwrap();
    let answer = model.invoke(ask()).await.unwrap();
    assert_eq!(answer.message.text(), "finally");
    assert_eq!(server.request_count(), 4);
    // Every attempt sent the same body.
    let bodies: Vec<_> = server.requests().into_iter().map(|r| r.raw_body).collect();
    assert!(bodies.windows(2).all(|w| w[0] == w[1]));
}

#[tokio::test]
async fn streams_are_retried_before_the_first_event() {
    let server = MockServer::with_script([
        err(503, "Overloaded", "server_error", None, None),
        MockResponse::text("streamed after a retry"),
    ])
    .await;
    let model = server.openai_model("gpt-4o-mini");
    let events: Vec<_> = model.stream(ask()).collect().await;
    match events.last() {
        Some(Ok(StreamEvent::Completed { response })) => {
            assert_eq!(response.message.text(), "streamed after a retry")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.request_count(), 2);
}

#[tokio::test]
async fn gives_up_after_the_budget() {
    let server = MockServer::with_handler(|_| err(500, "down", "server_error", None, None)).await;
    let model = server
        .openai_builder("gpt-4o-mini")
        .max_retries(2)
        .build()
        .unwrap();
    let e = model.invoke(ask()).await.unwrap_err();
    assert!(matches!(e, ModelError::Server { status: 500, .. }));
    assert_eq!(server.request_count(), 3);
    let none = server
        .openai_builder("gpt-4o-mini")
        .retry_policy(RetryPolicy::none())
        .build()
        .unwrap();
    none.invoke(ask()).await.unwrap_err();
    assert_eq!(server.request_count(), 4);
}

#[tokio::test]
async fn retry_after_is_read_and_honoured() {
    // `Retry-After: 0` (seconds) and an HTTP date in the past both mean "now".
    let server = MockServer::with_script([
        err(429, "slow down", "requests", None, None).header("retry-after", "0"),
        err(429, "slow down", "requests", None, None)
            .header("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT"),
        MockResponse::text("ok"),
    ])
    .await;
    // A backoff of an hour: the test only finishes because the server's wait replaces it.
    let policy = RetryPolicy::default()
        .max_retries(2)
        .initial_delay(Duration::from_secs(3600))
        .max_delay(Duration::from_secs(3600));
    let model = server
        .openai_builder("gpt-4o-mini")
        .retry_policy(policy)
        .build()
        .unwrap();
    assert_eq!(model.invoke(ask()).await.unwrap().message.text(), "ok");
    assert_eq!(server.request_count(), 3);

    // The hint is reported on the error, and a wait beyond `max_server_wait` is not retried.
    let server = MockServer::with_handler(|_| {
        err(429, "slow down", "requests", None, None).header("retry-after", "120")
    })
    .await;
    let policy = RetryPolicy::default()
        .max_retries(3)
        .max_server_wait(Duration::from_secs(60));
    let model = server
        .openai_builder("gpt-4o-mini")
        .retry_policy(policy)
        .build()
        .unwrap();
    let e = model.invoke(ask()).await.unwrap_err();
    assert_eq!(e.retry_after(), Some(Duration::from_secs(120)));
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn timeouts_connect_and_decode_failures() {
    let server =
        MockServer::with_handler(|_| MockResponse::text("late").delay(Duration::from_millis(500)))
            .await;
    let model = server
        .openai_builder("gpt-4o-mini")
        .timeout(Duration::from_millis(50))
        .retry_policy(RetryPolicy::none())
        .build()
        .unwrap();
    assert_eq!(
        model.invoke(ask()).await.unwrap_err(),
        ModelError::Timeout(Duration::from_millis(50))
    );
    let events: Vec<_> = model.stream(ask()).collect().await;
    assert!(
        matches!(events.as_slice(), [Err(ModelError::Timeout(_))]),
        "{events:?}"
    );

    // Nothing listens on port 1: a network error, retried like any other.
    let closed = OpenAiModel::compatible("m", "http://127.0.0.1:1/v1")
        .retry_policy(
            RetryPolicy::default()
                .max_retries(1)
                .initial_delay(Duration::from_millis(1)),
        )
        .build()
        .unwrap();
    let e = closed.invoke(ask()).await.unwrap_err();
    assert!(
        matches!(&e, ModelError::Network(m) if m.contains("connect")),
        "{e:?}"
    );

    let server =
        MockServer::with_handler(|_| MockResponse::json(serde_json::json!({ "unexpected": true })))
            .await;
    let e = server.openai_model("m").invoke(ask()).await.unwrap_err();
    assert!(
        matches!(&e, ModelError::Decode(m) if m.contains("no choices")),
        "{e:?}"
    );
    let server = MockServer::with_handler(|_| {
        MockResponse::raw_sse("{\"choices\": [").header("content-type", "application/json")
    })
    .await;
    let e = server.openai_model("m").invoke(ask()).await.unwrap_err();
    assert!(
        matches!(&e, ModelError::Decode(m) if m.contains("began with")),
        "{e:?}"
    );
    assert_eq!(server.request_count(), 1, "decode errors are not retried");
}

/// Collects every `tracing` event (all levels) as text.
struct Capture(std::sync::Arc<std::sync::Mutex<String>>);

impl tracing::Subscriber for Capture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Visit<'a>(&'a mut String);
        impl tracing::field::Visit for Visit<'_> {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                use std::fmt::Write;
                let _ = write!(self.0, "{}={:?} ", field.name(), value);
            }
        }
        let mut line = String::new();
        event.record(&mut Visit(&mut line));
        let mut all = self.0.lock().unwrap();
        all.push_str(&line);
        all.push('\n');
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[tokio::test]
async fn api_key_never_reaches_the_logs() {
    let key = "sk-proj-LOGSECRET-0123456789";
    let echo = format!("Incorrect API key provided: {key}");
    let server = MockServer::with_script([
        err(429, &echo, "requests", None, None).header("retry-after-ms", "1"),
        err(500, &echo, "server_error", None, None),
        err(
            401,
            &echo,
            "invalid_request_error",
            None,
            Some("invalid_api_key"),
        ),
    ])
    .await;
    let logs = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let _guard = tracing::subscriber::set_default(Capture(logs.clone()));
    // A callsite that another test's thread registers while this subscriber is being set
    // could keep the interest it computed without it: ask every callsite again.
    tracing::callsite::rebuild_interest_cache();
    let model = OpenAiModel::builder("gpt-4o-mini")
        .base_url(server.url())
        .api_key(key)
        .retry_policy(
            RetryPolicy::default()
                .max_retries(3)
                .initial_delay(Duration::from_millis(1)),
        )
        .build()
        .unwrap();
    tracing::debug!(?model, "built");
    let e = model.invoke(ask()).await.unwrap_err();
    assert!(matches!(e, ModelError::Authentication { .. }));
    assert_eq!(server.request_count(), 3);
    let logs = logs.lock().unwrap().clone();
    assert!(logs.contains("retrying"), "the retries were logged: {logs}");
    assert!(logs.contains("[redacted]"), "{logs}");
    assert!(!logs.contains(key), "{logs}");
}

#[tokio::test]
async fn a_stream_that_goes_silent_ends_with_a_timeout_after_its_first_events() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // A server that sends the headers and one chunk, then nothing, without closing.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = vec![0u8; 64 * 1024];
        let _ = socket.read(&mut request).await.unwrap();
        let chunk = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n";
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{chunk}\r\n",
            chunk.len()
        );
        socket.write_all(head.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    let model = OpenAiModel::compatible("m", format!("http://{addr}/v1"))
        .stream_idle_timeout(Duration::from_millis(200))
        .retry_policy(RetryPolicy::none())
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let events: Vec<_> = model.stream(ask()).collect().await;
    assert!(
        matches!(
            events.as_slice(),
            [Ok(StreamEvent::TextDelta { text }), Err(ModelError::Timeout(idle))]
                if text == "Hel" && *idle == Duration::from_millis(200)
        ),
        "{events:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    server.abort();
}
