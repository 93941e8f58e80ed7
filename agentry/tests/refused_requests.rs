//! A request the server refused without processing it (HTTP/2 `REFUSED_STREAM`, or a
//! graceful `GOAWAY` before the request's stream) is sent again at once, a bounded number of
//! times, without spending the retry policy.
//!
//! The server speaks HTTP/2 over plain TCP (h2c) with the `h2` crate, so that it can refuse
//! streams. The model is given a client configured like the SDK's own ones (reqwest's resend
//! layer off, which is what makes the SDK's own resending necessary), plus prior knowledge of
//! HTTP/2, which the SDK's clients only negotiate over TLS.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agentry::Message;
use agentry::model::{ChatModel, ChatRequest, ModelError};
use agentry::providers::openai::OpenAiModel;
use bytes::Bytes;
use tokio::net::TcpListener;

const ANSWER: &str = r#"{"id":"c1","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}"#;

/// How the test server treats what it receives.
#[derive(Clone, Copy)]
enum Refuse {
    /// Resets the first `n` requests' streams with `REFUSED_STREAM`.
    Streams(usize),
    /// Closes the first connection gracefully (`GOAWAY`, `NO_ERROR`) before reading any request.
    FirstConnection,
}

/// What the test server received.
#[derive(Default)]
struct Received {
    connections: AtomicUsize,
    requests: AtomicUsize,
}

/// An h2c server that refuses as `refuse` says and answers the rest; returns its URL and what
/// it received.
async fn serve(refuse: Refuse) -> (String, Arc<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/v1", listener.local_addr().expect("address"));
    let received = Arc::new(Received::default());
    let seen = Arc::clone(&received);
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let seen = Arc::clone(&seen);
            tokio::spawn(async move {
                let Ok(mut connection) = h2::server::handshake(socket).await else {
                    return;
                };
                let first = seen.connections.fetch_add(1, Ordering::SeqCst) == 0;
                if first && matches!(refuse, Refuse::FirstConnection) {
                    // No request has been read yet: the GOAWAY names none as processed.
                    connection.abrupt_shutdown(h2::Reason::NO_ERROR);
                    while connection.accept().await.is_some() {}
                    // Closing the socket with the request unread would reset the connection
                    // before the client reads the GOAWAY; hold it open meanwhile.
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    return;
                }
                while let Some(Ok((_request, mut respond))) = connection.accept().await {
                    let n = seen.requests.fetch_add(1, Ordering::SeqCst);
                    if matches!(refuse, Refuse::Streams(refusals) if n < refusals) {
                        respond.send_reset(h2::Reason::REFUSED_STREAM);
                        continue;
                    }
                    let head = http::Response::builder()
                        .status(200)
                        .header("content-type", "application/json")
                        .body(())
                        .expect("a response head");
                    let Ok(mut body) = respond.send_response(head, false) else {
                        continue;
                    };
                    let _ = body.send_data(Bytes::from_static(ANSWER.as_bytes()), true);
                }
            });
        }
    });
    (url, received)
}

/// A model on `url` whose retry policy retries nothing, so that only resends can succeed.
fn model(url: String) -> OpenAiModel {
    let client = reqwest::Client::builder()
        .http2_prior_knowledge()
        .retry(reqwest::retry::never().max_retries_per_request(0))
        .build()
        .expect("an HTTP/2 client");
    OpenAiModel::compatible("m", url)
        .http_client(client)
        .max_retries(0)
        .timeout(Duration::from_secs(10))
        .build()
        .expect("a model for the test server")
}

#[tokio::test]
async fn a_refused_request_is_sent_again_at_once_without_spending_a_retry() {
    let (url, received) = serve(Refuse::Streams(2)).await;
    let response = model(url)
        .invoke(ChatRequest::new(vec![Message::user("hi")]))
        .await
        .expect("the third send is answered");
    assert_eq!(response.message.text(), "Hi");
    assert_eq!(received.requests.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_request_refused_every_time_fails_after_two_resends() {
    let (url, received) = serve(Refuse::Streams(usize::MAX)).await;
    let err = model(url)
        .invoke(ChatRequest::new(vec![Message::user("hi")]))
        .await
        .expect_err("every send is refused");
    assert!(matches!(err, ModelError::Network(_)), "{err:?}");
    assert!(err.to_string().contains("refused"), "{err}");
    assert_eq!(received.requests.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_request_on_a_connection_closed_before_it_was_read_is_sent_again_on_a_new_one() {
    let (url, received) = serve(Refuse::FirstConnection).await;
    let response = model(url)
        .invoke(ChatRequest::new(vec![Message::user("hi")]))
        .await
        .expect("the second connection answers");
    assert_eq!(response.message.text(), "Hi");
    assert_eq!(received.connections.load(Ordering::SeqCst), 2);
    assert_eq!(received.requests.load(Ordering::SeqCst), 1);
}
