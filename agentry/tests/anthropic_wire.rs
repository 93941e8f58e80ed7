//! Anthropic specifics beyond the conformance suite: thinking blocks and their signatures
//! round-trip, opaque blocks pass through, `stop_sequence`, `init_chat_model("anthropic:…")`.

#[path = "conformance/server.rs"]
mod server;

use agentry::model::{
    ChatModel, ChatRequest, FinishReason, ModelError, StreamEvent, init_chat_model,
};
use agentry::providers::anthropic::AnthropicModel;
use agentry::{ContentBlock, Message};
use futures::StreamExt;
use serde_json::{Value, json};
use server::{Reply, Server, sse_event};

const KEY: &str = "sk-ant-wire-test-0123456789";

fn model(server: &Server) -> AnthropicModel {
    AnthropicModel::builder("claude-sonnet-4-5")
        .base_url(server.url())
        .api_key(KEY)
        .thinking(1024)
        .default_max_tokens(2048)
        .build()
        .unwrap()
}

fn thinking_stream() -> String {
    let ev = |name: &str, data: Value| sse_event(name, &data);
    [
        ev("message_start", json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "usage": {"input_tokens": 20, "output_tokens": 1}}})),
        ev("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}})),
        ev("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "The user wants "}})),
        ev("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "the weather."}})),
        ev("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}})),
        ev("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        ev("content_block_start", json!({"type": "content_block_start", "index": 1, "content_block": {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}})),
        ev("content_block_stop", json!({"type": "content_block_stop", "index": 1})),
        ev("content_block_start", json!({"type": "content_block_start", "index": 2, "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "paris"}}})),
        ev("content_block_stop", json!({"type": "content_block_stop", "index": 2})),
        ev("content_block_start", json!({"type": "content_block_start", "index": 3, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}})),
        ev("content_block_delta", json!({"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Pa"}})),
        ev("content_block_delta", json!({"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": "ris\"}"}})),
        ev("content_block_stop", json!({"type": "content_block_stop", "index": 3})),
        ev("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 40}})),
        ev("message_stop", json!({"type": "message_stop"})),
    ]
    .concat()
}

#[tokio::test]
async fn thinking_blocks_are_sent_back_unchanged_with_their_signature() {
    let done = json!({"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "18°C."}], "stop_reason": "end_turn", "usage": {"input_tokens": 5, "output_tokens": 3}});
    let server = Server::start(vec![Reply::sse(thinking_stream()), Reply::json(200, &done)]).await;
    let model = model(&server);
    let mut stream = model.stream(ChatRequest::new(vec![Message::user("Weather in Paris?")]));
    let mut reasoning = String::new();
    let mut answer = None;
    while let Some(ev) = stream.next().await {
        match ev.unwrap() {
            StreamEvent::ReasoningDelta { text } => reasoning.push_str(&text),
            StreamEvent::Completed { response } => answer = Some(response),
            _ => {}
        }
    }
    assert_eq!(reasoning, "The user wants the weather.");
    let answer = answer.unwrap();
    assert_eq!(answer.finish_reason, FinishReason::ToolCalls);
    assert_eq!(
        answer.message.content[0],
        ContentBlock::Reasoning {
            text: "The user wants the weather.".into(),
            signature: Some("EqQBCgIYAhIM1gbcDa9GJwZA2b3h".into())
        }
    );
    assert!(
        matches!(&answer.message.content[1], ContentBlock::Other { provider, value } if provider == "anthropic" && value["type"] == "redacted_thinking")
    );
    assert!(
        matches!(&answer.message.content[2], ContentBlock::Other { value, .. } if value["type"] == "server_tool_use")
    );
    assert_eq!(
        answer.message.tool_calls[0].arguments,
        r#"{"city": "Paris"}"#
    );

    let history = vec![
        Message::user("Weather in Paris?"),
        Message::Assistant(answer.message.clone()),
        Message::tool_result("toolu_1", "get_weather", "18°C"),
    ];
    model.invoke(ChatRequest::new(history)).await.unwrap();
    let body = &server.requests()[1].body;
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 1024})
    );
    assert_eq!(body["max_tokens"], 2048);
    assert_eq!(
        body["messages"][1]["content"],
        json!([
            {"type": "thinking", "thinking": "The user wants the weather.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "paris"}},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
        ])
    );
    assert_eq!(
        body["messages"][2],
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "18°C"}]})
    );
}

#[tokio::test]
async fn stop_sequence_is_a_normal_stop_and_stop_sequences_are_sent() {
    let body = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "1, 2, 3"}], "stop_reason": "stop_sequence", "stop_sequence": "4",
        "usage": {"input_tokens": 5, "output_tokens": 3, "cache_creation_input_tokens": 7}});
    let server = Server::start(vec![Reply::json(200, &body)]).await;
    let mut req = ChatRequest::new(vec![Message::user("Count")]);
    req.stop = vec!["4".into()];
    req.temperature = Some(0.3);
    let r = model(&server).invoke(req).await.unwrap();
    assert_eq!(r.finish_reason, FinishReason::Stop);
    assert_eq!((r.usage.input_tokens, r.usage.cache_write_tokens), (12, 7));
    let sent = server.request().body;
    assert_eq!(sent["stop_sequences"], json!(["4"]));
    assert!(
        sent.get("temperature").is_none(),
        "temperature is not sent with thinking on"
    );
}

#[tokio::test]
async fn thinking_budget_must_fit_in_max_tokens() {
    let server = Server::start(vec![]).await;
    let mut req = ChatRequest::new(vec![Message::user("Hi")]);
    req.max_tokens = Some(512);
    let err = model(&server).invoke(req).await.unwrap_err();
    assert!(
        matches!(&err, ModelError::InvalidRequest { param: Some(p), .. } if p == "max_tokens"),
        "{err:?}"
    );
    assert!(server.requests().is_empty());
}

#[test]
fn init_chat_model_knows_anthropic_and_names_the_key_variable() {
    // SAFETY: no other test in this binary reads or writes these variables.
    unsafe {
        std::env::remove_var("ANTHROPIC_API_KEY");
        std::env::remove_var("ANTHROPIC_BASE_URL");
    }
    let err = init_chat_model("anthropic:claude-sonnet-4-5")
        .err()
        .expect("no key");
    assert!(err.to_string().contains("ANTHROPIC_API_KEY"), "{err}");
    let m = AnthropicModel::builder("claude-sonnet-4-5")
        .api_key(KEY)
        .build()
        .unwrap();
    assert_eq!(m.endpoint(), "https://api.anthropic.com/v1/messages");
    assert!(!format!("{m:?}").contains(KEY));
}
