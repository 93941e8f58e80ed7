//! A streamed answer hands its connection back to the pool: the next request reuses it
//! instead of opening another (which, over HTTPS, would be another handshake).
//!
//! The server is written by hand over TCP so that it can count connections.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agentry::Message;
use agentry::model::{ChatModel, ChatRequest, StreamEvent};
use agentry::providers::openai::OpenAiModel;
use futures::StreamExt;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// The SSE events of a short answer, up to and including `[DONE]`.
const EVENTS: &str = concat!(
    r#"data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}"#,
    "\n\n",
    r#"data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
    "\n\n",
    "data: [DONE]\n\n",
);

/// Serves every request on every connection with [`EVENTS`]; returns its URL and the number
/// of connections accepted so far.
async fn serve() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/v1", listener.local_addr().expect("address"));
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(answer_each_request(socket));
        }
    });
    (url, accepted)
}

async fn answer_each_request(socket: TcpStream) {
    let mut socket = BufReader::new(socket);
    loop {
        // The request head, then its body (`content-length` bytes).
        let mut length = 0;
        loop {
            let mut line = String::new();
            match socket.read_line(&mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().expect("a content length");
            }
        }
        let mut body = vec![0; length];
        if socket.read_exact(&mut body).await.is_err() {
            return;
        }
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
        let chunk = format!("{:x}\r\n{EVENTS}\r\n", EVENTS.len());
        // The events and the chunked body's last, empty chunk, in one write.
        let all = format!("{head}{chunk}0\r\n\r\n");
        let sent = socket.get_mut().write_all(all.as_bytes()).await;
        if sent.is_err() {
            return;
        }
    }
}

/// Streams three answers in a row; returns the connections the server accepted.
async fn three_streams() -> usize {
    let (url, accepted) = serve().await;
    let model = OpenAiModel::compatible("m", url)
        .build()
        .expect("a model for the test server");
    for _ in 0..3 {
        let mut events = model.stream(ChatRequest::new(vec![Message::user("hi")]));
        let mut completed = false;
        while let Some(event) = events.next().await {
            if let StreamEvent::Completed { response } = event.expect("a streamed event") {
                assert_eq!(response.message.text(), "Hi");
                completed = true;
                // The way the agent loop reads a stream: it stops at the completing event.
                break;
            }
        }
        assert!(completed, "the stream completed");
        drop(events);
        // Let the connection's task hand it back to the pool.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    accepted.load(Ordering::SeqCst)
}

#[tokio::test]
async fn a_stream_read_to_its_completing_event_leaves_its_connection_to_the_next_request() {
    assert_eq!(three_streams().await, 1);
}
