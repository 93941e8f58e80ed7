//! Anthropic text blocks keep their `citations` (web search, citable documents), whole and
//! streamed (`citations_delta`), and send them back with their text.

#[path = "conformance/server.rs"]
mod server;

use agentry::model::{ChatModel, ChatRequest, StreamEvent};
use agentry::providers::anthropic::AnthropicModel;
use agentry::{ContentBlock, Message};
use futures::StreamExt;
use serde_json::{Value, json};
use server::{Reply, Server, sse_event};

fn model(server: &Server) -> AnthropicModel {
    AnthropicModel::builder("claude-sonnet-4-5")
        .base_url(server.url())
        .api_key("sk-ant-wire-test-0123456789")
        .default_max_tokens(1024)
        .build()
        .unwrap()
}

fn web_citation() -> Value {
    json!({"type": "web_search_result_location", "url": "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html",
           "title": "Announcing Rust 1.0", "encrypted_index": "Eo8BCioIAhgBIiQ",
           "cited_text": "Today we are very proud to announce the 1.0 release of Rust"})
}

fn doc_citation() -> Value {
    json!({"type": "char_location", "cited_text": "The grass is green.", "document_index": 0,
           "document_title": "Facts", "start_char_index": 0, "end_char_index": 19})
}

fn done() -> Value {
    json!({"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
           "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
           "usage": {"input_tokens": 1, "output_tokens": 1}})
}

#[tokio::test]
async fn citations_are_kept_and_sent_back_with_their_text() {
    let answer = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [
            {"type": "text", "text": "Rust 1.0 shipped "},
            {"type": "text", "text": "on 15 May 2015", "citations": [web_citation(), doc_citation()]},
            {"type": "text", "text": "."}
        ],
        "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 12}});
    let server = Server::start(vec![Reply::json(200, &answer), Reply::json(200, &done())]).await;
    let model = model(&server);
    let response = model
        .invoke(ChatRequest::new(vec![Message::user(
            "When did Rust 1.0 ship?",
        )]))
        .await
        .unwrap();
    let message = response.message;
    assert_eq!(message.text(), "Rust 1.0 shipped on 15 May 2015.");
    let cited: Vec<usize> = message
        .content
        .iter()
        .map(|b| b.citations().len())
        .collect();
    assert_eq!(cited, [0, 2, 0]);
    let citations = message.content[1].citations();
    assert_eq!(citations[0].kind(), Some("web_search_result_location"));
    assert_eq!(
        citations[0].url(),
        Some("https://blog.rust-lang.org/2015/05/15/Rust-1.0.html")
    );
    assert_eq!(citations[0].title(), Some("Announcing Rust 1.0"));
    assert_eq!(citations[1].title(), Some("Facts"));
    assert_eq!(citations[1].cited_text(), Some("The grass is green."));

    // Sent back unchanged with the text they belong to.
    let history = vec![
        Message::user("When did Rust 1.0 ship?"),
        Message::Assistant(message),
        Message::user("Thanks."),
    ];
    model.invoke(ChatRequest::new(history)).await.unwrap();
    let sent = &server.requests()[1].body["messages"][1]["content"];
    assert_eq!(
        sent[1]["citations"],
        json!([web_citation(), doc_citation()])
    );
    assert!(sent[0].get("citations").is_none(), "{sent}");
}

#[tokio::test]
async fn streamed_citations_are_kept() {
    let ev = |name: &str, data: Value| sse_event(name, &data);
    let body = [
        ev("message_start", json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "usage": {"input_tokens": 5, "output_tokens": 1}}})),
        ev("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "", "citations": []}})),
        ev("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": web_citation()}})),
        ev("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "On 15 May 2015."}})),
        ev("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        ev("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}})),
        ev("message_stop", json!({"type": "message_stop"})),
    ]
    .concat();
    let server = Server::start(vec![Reply::sse(body)]).await;
    let events: Vec<StreamEvent> = model(&server)
        .stream(ChatRequest::new(vec![Message::user("When?")]))
        .map(Result::unwrap)
        .collect()
        .await;
    let Some(StreamEvent::Completed { response }) = events.last() else {
        panic!("{:?}", events.last())
    };
    let [block @ ContentBlock::Text { .. }] = &response.message.content[..] else {
        panic!("{:?}", response.message.content)
    };
    assert_eq!(block.as_text(), Some("On 15 May 2015."));
    assert_eq!(block.citations().len(), 1);
    assert_eq!(block.citations()[0].value, web_citation());
}
