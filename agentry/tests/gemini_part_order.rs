//! Gemini model turns keep the order of their parts — text, code execution and function calls
//! interleaved — when decoded (whole and streamed) and when sent back in the history.

#[path = "conformance/server.rs"]
mod server;

use agentry::model::{ChatModel, ChatRequest, StreamEvent};
use agentry::providers::gemini::GeminiModel;
use agentry::{ContentBlock, Message};
use futures::StreamExt;
use serde_json::{Value, json};
use server::{Reply, Server, sse_event};

fn model(server: &Server) -> GeminiModel {
    GeminiModel::builder("gemini-2.5-flash")
        .base_url(server.url())
        .api_key("AIza-wire-test-0123456789")
        .build()
        .unwrap()
}

/// A turn whose parts interleave text, code execution and function calls.
fn parts() -> Vec<Value> {
    vec![
        json!({"text": "Let me compute that."}),
        json!({"executableCode": {"language": "PYTHON", "code": "print(2 ** 10)"}}),
        json!({"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1024\n"}}),
        json!({"functionCall": {"id": "fc_1", "name": "save", "args": {"value": 1024}}}),
        json!({"text": "Saved; now the weather."}),
        json!({"functionCall": {"id": "fc_2", "name": "weather", "args": {"city": "Oslo"}}, "thoughtSignature": "c2ln"}),
    ]
}

fn answer() -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": parts()}, "finishReason": "STOP"}],
           "responseId": "r1"})
}

fn done() -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Done."}]}, "finishReason": "STOP"}]})
}

/// What the message looks like, block by block.
fn kinds(content: &[ContentBlock]) -> Vec<String> {
    content
        .iter()
        .map(|b| match b {
            ContentBlock::Text { text, .. } => format!("text {text}"),
            ContentBlock::Other { value, .. } if value.get("tool_call_id").is_some() => {
                format!("call {}", value["tool_call_id"].as_str().unwrap())
            }
            ContentBlock::Other { value, .. } => {
                let key = value.as_object().unwrap().keys().next().unwrap().clone();
                format!("other {key}")
            }
            other => format!("{other:?}"),
        })
        .collect()
}

const ORDER: [&str; 6] = [
    "text Let me compute that.",
    "other executableCode",
    "other codeExecutionResult",
    "call fc_1",
    "text Saved; now the weather.",
    "call fc_2",
];

async fn sent_back(server: &Server, model: &GeminiModel, message: agentry::AssistantMessage) {
    let mut history = vec![Message::user("2^10, save it, then Oslo weather?")];
    history.push(Message::Assistant(message));
    history.push(Message::tool_result("fc_1", "save", "ok"));
    history.push(Message::tool_result("fc_2", "weather", "3°C"));
    model.invoke(ChatRequest::new(history)).await.unwrap();
    let sent = server.requests().last().unwrap().body["contents"][1].clone();
    assert_eq!(sent["role"], "model");
    assert_eq!(
        sent["parts"],
        json!(parts()),
        "the parts go back as received"
    );
}

#[tokio::test]
async fn a_whole_answer_keeps_its_part_order_there_and_back() {
    let server = Server::start(vec![Reply::json(200, &answer()), Reply::json(200, &done())]).await;
    let model = model(&server);
    let response = model
        .invoke(ChatRequest::new(vec![Message::user("Go")]))
        .await
        .unwrap();
    assert_eq!(kinds(&response.message.content), ORDER);
    assert_eq!(response.message.tool_calls.len(), 2);
    sent_back(&server, &model, response.message).await;
}

#[tokio::test]
async fn a_streamed_answer_keeps_its_part_order_there_and_back() {
    let body: String = parts()
        .into_iter()
        .map(|part| {
            sse_event(
                "",
                &json!({"candidates": [{"content": {"role": "model", "parts": [part]}}], "responseId": "r1"}),
            )
        })
        .chain([sse_event(
            "",
            &json!({"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP"}], "responseId": "r1"}),
        )])
        .collect();
    let server = Server::start(vec![Reply::sse(body), Reply::json(200, &done())]).await;
    let model = model(&server);
    let events: Vec<StreamEvent> = model
        .stream(ChatRequest::new(vec![Message::user("Go")]))
        .map(Result::unwrap)
        .collect()
        .await;
    let Some(StreamEvent::Completed { response }) = events.last() else {
        panic!("{:?}", events.last())
    };
    assert_eq!(kinds(&response.message.content), ORDER);
    sent_back(&server, &model, response.message.clone()).await;
}
