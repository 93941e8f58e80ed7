//! Hardening scenarios (issue 10), run for every wire format: error envelopes in 200 answers, the response caps, unique tool-call ids, exact sampling values,
//! and body read failures as retryable network errors.

use std::sync::{Arc, Mutex};

use agentry::agent::{AgentBuilder, NoTools};
use agentry::http::{ResponseLimit, ResponseLimits};
use agentry::model::{ChatRequest, ModelError, StreamEvent};
use agentry::{Message, ToolCall};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::scenarios::{local_time, weather};
use super::server::{Reply, Server};
use super::wire::{Call, Finish, Turn, TurnUsage, Wire};

pub fn request() -> ChatRequest {
    let mut req = ChatRequest::new(vec![Message::user("Weather in Paris?")]);
    req.tools = vec![weather().into(), local_time().into()].into();
    req
}

fn turn(calls: Vec<Call>) -> Turn {
    Turn {
        text: if calls.is_empty() {
            Some("It is sunny.".into())
        } else {
            None
        },
        finish: if calls.is_empty() {
            Finish::Stop
        } else {
            Finish::ToolCalls
        },
        calls,
        usage: TurnUsage {
            input: 20,
            cached: 0,
            output: 5,
        },
    }
}

fn call(id: &str, name: &str, args: Value) -> Call {
    Call {
        id: id.into(),
        name: name.into(),
        args,
    }
}

pub async fn stream_result(
    stream: agentry::model::EventStream,
) -> (
    Vec<StreamEvent>,
    Result<agentry::model::ChatResponse, ModelError>,
) {
    let mut events = Vec::new();
    let mut stream = stream;
    while let Some(item) = stream.next().await {
        match item {
            Ok(StreamEvent::Completed { response }) => return (events, Ok(*response)),
            Ok(ev) => events.push(ev),
            Err(e) => return (events, Err(e)),
        }
    }
    panic!("the stream ended without Completed or an error");
}

pub async fn call_model(
    model: &agentry::model::SharedModel,
    stream: bool,
) -> Result<agentry::model::ChatResponse, ModelError> {
    if stream {
        stream_result(model.stream(request())).await.1
    } else {
        model.invoke(request()).await
    }
}

// ------------------------------------------------------ item 4: error envelopes in 200 answers

pub async fn error_envelope_in_200(w: &dyn Wire) {
    let name = w.name();
    // A rate limit is retried within the budget, like a 429.
    let ok = w.reply(&turn(vec![]), false);
    let envelope = Reply::json(200, &w.error_envelope("Slow down", true));
    let server = Server::start(vec![envelope.clone(), ok]).await;
    let r = w.model(&server.url()).invoke(request()).await;
    assert_eq!(
        r.map(|r| r.message.text()).ok().as_deref(),
        Some("It is sunny."),
        "[{name}] retried after a rate-limit envelope"
    );
    assert_eq!(server.requests().len(), 2, "[{name}]");

    let server = Server::start(vec![envelope.clone(), envelope]).await;
    let err = w.model(&server.url()).invoke(request()).await.unwrap_err();
    match &err {
        ModelError::RateLimited { message, .. } => {
            assert!(message.contains("Slow down"), "[{name}] {message}");
            assert!(message.contains("type `"), "[{name}] type kept: {message}");
        }
        other => panic!("[{name}] a rate limit, got {other:?}"),
    }

    // An invalid request is typed and not retried; the agent does not re-ask.
    let bad = Reply::json(200, &w.error_envelope("Bad value for temperature", false));
    let server = Server::start(vec![bad.clone(), bad.clone(), bad]).await;
    let err = w.model(&server.url()).invoke(request()).await.unwrap_err();
    match &err {
        ModelError::InvalidRequest { message, .. } => {
            assert!(
                message.contains("Bad value for temperature"),
                "[{name}] {message}"
            );
            assert!(message.contains("type `"), "[{name}] type kept: {message}");
        }
        other => panic!("[{name}] an invalid request, got {other:?}"),
    }
    let agent = AgentBuilder::<_, _, (), ()>::new(w.model(&server.url()), NoTools).build();
    let run_err = agent.run("Weather?", ()).await.unwrap_err();
    assert!(
        matches!(
            run_err.kind(),
            agentry::agent::RunErrorKind::Model(ModelError::InvalidRequest { .. })
        ),
        "[{name}] {run_err}"
    );
    assert_eq!(server.requests().len(), 2, "[{name}] one request per call");
}

// ------------------------------------------------------------------- item 3: response caps

async fn limited(
    w: &dyn Wire,
    limits: ResponseLimits,
    reply: Reply,
    stream: bool,
) -> Result<agentry::model::ChatResponse, ModelError> {
    let server = Server::start(vec![reply.clone(), reply]).await;
    let model = w.model_with_limits(&server.url(), limits);
    let r = call_model(&model, stream).await;
    assert_eq!(
        server.requests().len(),
        1,
        "[{}] a cap is not retried",
        w.name()
    );
    r
}

fn expect_cap(
    w: &dyn Wire,
    r: Result<agentry::model::ChatResponse, ModelError>,
    cap: ResponseLimit,
) {
    match r {
        Err(ModelError::LimitExceeded { limit, .. }) if limit == cap => {
            let e = ModelError::LimitExceeded { limit, max: 1 };
            assert!(e.to_string().contains(cap.name()), "{e}");
        }
        other => panic!("[{}] expected the {cap} error, got {other:?}", w.name()),
    }
}

pub async fn response_caps(w: &dyn Wire) {
    let calls = turn(vec![
        call("call_a", "get_weather", json!({ "city": "Paris" })),
        call("call_b", "local_time", json!({ "city": "Rome" })),
    ]);
    let d = ResponseLimits::default;
    for stream in [false, true] {
        let r = limited(w, d().max_tool_calls(1), w.reply(&calls, stream), stream).await;
        expect_cap(w, r, ResponseLimit::ToolCalls);
        let r = limited(
            w,
            d().max_tool_call_bytes(8),
            w.reply(&calls, stream),
            stream,
        )
        .await;
        expect_cap(w, r, ResponseLimit::ToolCallBytes);
        // Within the caps, the same answer passes.
        let r = limited(
            w,
            d().max_tool_calls(2).max_tool_call_bytes(64),
            w.reply(&calls, stream),
            stream,
        )
        .await;
        assert_eq!(r.unwrap().message.tool_calls.len(), 2, "[{}]", w.name());
    }
    let r = limited(w, d().max_body_bytes(64), w.reply(&calls, false), false).await;
    expect_cap(w, r, ResponseLimit::BodyBytes);
    let r = limited(w, d().max_event_bytes(40), w.reply(&calls, true), true).await;
    expect_cap(w, r, ResponseLimit::EventBytes);
    let r = limited(w, d().max_stream_bytes(200), w.reply(&calls, true), true).await;
    expect_cap(w, r, ResponseLimit::StreamBytes);
}

// -------------------------------------------------------------- item 7: unique tool-call ids

pub async fn tool_call_ids_made_unique(w: &dyn Wire) {
    if !w.has_call_ids() {
        return; // The format has no ids; the SDK synthesizes unique ones (tested elsewhere).
    }
    let name = w.name();
    let calls = turn(vec![
        call("", "get_weather", json!({ "city": "Paris" })),
        call("", "get_weather", json!({ "city": "Rome" })),
        call("dup", "local_time", json!({ "city": "Oslo" })),
        call("dup", "local_time", json!({ "city": "Bern" })),
    ]);
    for stream in [false, true] {
        let server = Server::start(vec![w.reply(&calls, stream)]).await;
        let model = w.model(&server.url());
        let (events, r) = if stream {
            stream_result(model.stream(request())).await
        } else {
            (Vec::new(), model.invoke(request()).await)
        };
        let r = r.unwrap_or_else(|e| panic!("[{name}] {e}"));
        let ids: Vec<&str> = r.message.tool_calls.iter().map(|c| c.id.as_str()).collect();
        let unique: std::collections::HashSet<&str> = ids.iter().copied().collect();
        assert_eq!(unique.len(), 4, "[{name}] unique ids: {ids:?}");
        assert!(ids.iter().all(|id| !id.is_empty()), "[{name}] {ids:?}");
        assert_eq!(ids[2], "dup", "[{name}] the first use of an id is kept");
        if stream {
            let started: Vec<&str> = events
                .iter()
                .filter_map(|e| match e {
                    StreamEvent::ToolCallStart { id, .. } => Some(id.as_str()),
                    _ => None,
                })
                .collect();
            assert_eq!(started, ids, "[{name}] the events announce the same ids");
        }
        // The next request, with the results, names each call once.
        let mut history = vec![
            Message::user("Weather?"),
            Message::Assistant(r.message.clone()),
        ];
        for c in &r.message.tool_calls {
            history.push(Message::tool_result(c.id.clone(), c.name.clone(), "ok"));
        }
        let server = Server::start(vec![w.reply(&turn(vec![]), false)]).await;
        let mut follow = request();
        follow.messages = history.into();
        w.model(&server.url()).invoke(follow).await.unwrap();
        let (sent, results) = w.sent_calls_and_results(&server.request().body);
        let sent_ids: std::collections::HashSet<String> =
            sent.iter().map(|c| c.id.clone()).collect();
        assert_eq!(sent_ids.len(), 4, "[{name}] {sent:?}");
        let result_ids: std::collections::HashSet<String> =
            results.iter().filter_map(|r| r.id.clone()).collect();
        assert_eq!(
            result_ids, sent_ids,
            "[{name}] each result answers one call"
        );
    }
    let _ = ToolCall::new("", "", "");
}

// ----------------------------------------------------------- item 8: exact sampling values

pub async fn exact_sampling_values(w: &dyn Wire) {
    let server = Server::start(vec![w.reply(&turn(vec![]), false)]).await;
    let mut req = request();
    req.temperature = Some(0.1);
    req.top_p = Some(0.9);
    w.model(&server.url()).invoke(req).await.unwrap();
    let raw = server.request().body;
    let (temperature, top_p) = w.sampling(&raw);
    assert_eq!(
        temperature,
        json!(0.1),
        "[{}] temperature as written",
        w.name()
    );
    assert_eq!(top_p, json!(0.9), "[{}] top_p as written", w.name());
}

// ------------------------------------------------ item 1: body read failures are network errors

/// A raw HTTP/1.1 server on 127.0.0.1: for each connection, in order, the next of `answers`
/// (head and body bytes); `cut` answers promise more bytes than they send, then close.
async fn raw_server(answers: Vec<(Vec<u8>, bool)>) -> (String, Arc<Mutex<usize>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let served = Arc::new(Mutex::new(0));
    let count = served.clone();
    tokio::spawn(async move {
        for (body, cut) in answers {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            *count.lock().unwrap() += 1;
            read_request(&mut socket).await;
            let promised = if cut {
                body.len() * 2 + 100
            } else {
                body.len()
            };
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: {}\r\ncontent-length: {promised}\r\nconnection: close\r\n\r\n",
                if body.starts_with(b"{") {
                    "application/json"
                } else {
                    "text/event-stream"
                }
            );
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(&body).await;
            let _ = socket.flush().await;
            drop(socket);
        }
    });
    (format!("http://{addr}"), served)
}

async fn read_request(socket: &mut tokio::net::TcpStream) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = socket.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                return;
            }
        }
    }
}

fn body_of(reply: &Reply) -> Vec<u8> {
    reply
        .chunks
        .iter()
        .flat_map(|c| c.iter().copied())
        .collect()
}

pub async fn body_read_failures_are_network_errors(w: &dyn Wire) {
    let name = w.name();
    let whole = body_of(&w.reply(&turn(vec![]), false));
    let half = whole[..whole.len() / 2].to_vec();
    // A reset while the body is read is retried, like one before the headers.
    let (url, served) = raw_server(vec![(half.clone(), true), (whole.clone(), false)]).await;
    let r = w.model(&url).invoke(request()).await;
    assert_eq!(
        r.map(|r| r.message.text()).ok().as_deref(),
        Some("It is sunny."),
        "[{name}] retried after a cut body"
    );
    assert_eq!(*served.lock().unwrap(), 2, "[{name}]");
    // Out of retries, it is a network error, not a decode error.
    let (url, _) = raw_server(vec![(half.clone(), true), (half, true)]).await;
    let err = w.model(&url).invoke(request()).await.unwrap_err();
    assert!(matches!(err, ModelError::Network(_)), "[{name}] {err:?}");

    // A stream cut before its first event is opened again, within the budget.
    let streamed = body_of(&w.reply(&turn(vec![]), true));
    let (url, served) = raw_server(vec![
        (streamed[..10].to_vec(), true),
        (streamed.clone(), false),
    ])
    .await;
    let (_, r) = stream_result(w.model(&url).stream(request())).await;
    assert_eq!(
        r.map(|r| r.message.text()).ok().as_deref(),
        Some("It is sunny."),
        "[{name}] a stream cut before any event is retried"
    );
    assert_eq!(*served.lock().unwrap(), 2, "[{name}]");

    // A stream cut after events were delivered: a network error saying so, not retried.
    let cut = streamed[..streamed.len() * 2 / 3].to_vec();
    let (url, served) = raw_server(vec![(cut, true), (streamed, false)]).await;
    let (_, r) = stream_result(w.model(&url).stream(request())).await;
    match r {
        Err(ModelError::Network(m)) => assert!(m.contains("stream was cut"), "[{name}] {m}"),
        other => panic!("[{name}] a network error, got {other:?}"),
    }
    assert_eq!(*served.lock().unwrap(), 1, "[{name}] not retried");
}
