//! A request the server refused without processing it (HTTP/2 `REFUSED_STREAM`) is sent again
//! at once, a bounded number of times, without spending the retry policy.
//!
//! The server speaks HTTP/2 over plain TCP (h2c) with the `h2` crate, so that it can refuse
//! streams. The model is given a client configured like the SDK's own ones (reqwest's resend
//! layer off, which is what makes the SDK's own resending necessary), plus prior knowledge of
//! HTTP/2, which the SDK's clients only negotiate over TLS.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agent_sdk::Message;
use agent_sdk::model::{ChatModel, ChatRequest, ModelError};
use agent_sdk::providers::openai::OpenAiModel;
use bytes::Bytes;
use tokio::net::TcpListener;

const ANSWER: &str = r#"{"id":"c1","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}"#;

/// An h2c server that refuses the first `refusals` requests and answers the rest; returns its
/// URL and the number of requests it received.
async fn serve(refusals: usize) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/v1", listener.local_addr().expect("address"));
    let received = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&received);
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let count = Arc::clone(&count);
            tokio::spawn(async move {
                let Ok(mut connection) = h2::server::handshake(socket).await else {
                    return;
                };
                while let Some(Ok((_request, mut respond))) = connection.accept().await {
                    if count.fetch_add(1, Ordering::SeqCst) < refusals {
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
    let (url, received) = serve(2).await;
    let response = model(url)
        .invoke(ChatRequest::new(vec![Message::user("hi")]))
        .await
        .expect("the third send is answered");
    assert_eq!(response.message.text(), "Hi");
    assert_eq!(received.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_request_refused_every_time_fails_after_two_resends() {
    let (url, received) = serve(usize::MAX).await;
    let err = model(url)
        .invoke(ChatRequest::new(vec![Message::user("hi")]))
        .await
        .expect_err("every send is refused");
    assert!(matches!(err, ModelError::Network(_)), "{err:?}");
    assert!(err.to_string().contains("refused"), "{err}");
    assert_eq!(received.load(Ordering::SeqCst), 3);
}
