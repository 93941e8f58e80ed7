//! OpenAI Responses specifics beyond the conformance suite: reasoning items carried in the
//! history and sent back unchanged, reasoning summaries streamed, `init_chat_model`.

#[path = "conformance/server.rs"]
mod server;

use agentry::model::{ChatModel, ChatRequest, FinishReason, StreamEvent, init_chat_model};
use agentry::providers::openai_responses::OpenAiResponsesModel;
use agentry::{ContentBlock, Message};
use futures::StreamExt;
use serde_json::{Value, json};
use server::{Reply, Server, sse_event};

const KEY: &str = "sk-responses-wire-0123456789";

fn ev(data: Value) -> String {
    sse_event(data["type"].as_str().unwrap(), &data)
}

#[tokio::test]
async fn reasoning_items_are_carried_and_sent_back_before_their_calls() {
    let reasoning = json!({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Look it up."}], "encrypted_content": "gAAAAABo-encrypted"});
    let call = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}", "status": "completed"});
    let final_response = json!({"id": "resp_1", "model": "o4-mini", "status": "completed", "output": [reasoning, call],
        "usage": {"input_tokens": 30, "output_tokens": 50, "output_tokens_details": {"reasoning_tokens": 40}}});
    let stream = [
        ev(json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress", "output": []}})),
        ev(json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning", "id": "rs_1", "summary": []}})),
        ev(json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": 0, "delta": "Look it "})),
        ev(json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": 0, "delta": "up."})),
        ev(json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": ""}})),
        ev(json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 1, "delta": "{\"city\":"})),
        ev(json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 1, "delta": "\"Paris\"}"})),
        ev(json!({"type": "response.completed", "response": final_response})),
    ]
    .concat();
    let done = json!({"id": "resp_2", "model": "o4-mini", "status": "completed",
        "output": [{"type": "message", "id": "msg_2", "role": "assistant", "content": [{"type": "output_text", "text": "18°C", "annotations": []}]}]});
    let server = Server::start(vec![Reply::sse(stream), Reply::json(200, &done)]).await;
    let model = OpenAiResponsesModel::builder("o4-mini")
        .base_url(format!("{}/v1", server.url()))
        .api_key(KEY)
        .reasoning_effort("low")
        .build()
        .unwrap();

    let events: Vec<StreamEvent> = model
        .stream(ChatRequest::new(vec![Message::user("Weather?")]))
        .map(Result::unwrap)
        .collect()
        .await;
    let summary: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ReasoningDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(summary, "Look it up.");
    let Some(StreamEvent::Completed { response: first }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(first.finish_reason, FinishReason::ToolCalls);
    assert_eq!(first.usage.reasoning_tokens, 40);
    assert!(
        matches!(&first.message.content[0], ContentBlock::Reasoning { text, .. } if text == "Look it up.")
    );

    let mut req = ChatRequest::new(vec![
        Message::user("Weather?"),
        Message::Assistant(first.message.clone()),
        Message::tool_result("call_1", "get_weather", "18°C"),
    ]);
    req.temperature = Some(0.2);
    let second = model.invoke(req).await.unwrap();
    assert_eq!(second.message.text(), "18°C");
    let sent = &server.requests()[1].body;
    assert_eq!(
        sent["input"],
        json!([
            {"role": "user", "content": [{"type": "input_text", "text": "Weather?"}]},
            reasoning,
            {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "18°C"}
        ])
    );
    assert_eq!(
        sent["reasoning"],
        json!({"effort": "low", "summary": "auto"})
    );
    assert_eq!(sent["include"], json!(["reasoning.encrypted_content"]));
    assert_eq!(sent["store"], false);
    assert!(sent.get("temperature").is_none());
}

#[tokio::test]
async fn failed_response_in_a_stream_is_an_error() {
    let body = ev(
        json!({"type": "response.failed", "response": {"id": "r", "status": "failed", "error": {"code": "server_error", "message": "boom"}}}),
    );
    let server = Server::start(vec![Reply::sse(body)]).await;
    let model = OpenAiResponsesModel::builder("gpt-4.1")
        .base_url(format!("{}/v1", server.url()))
        .api_key(KEY)
        .build()
        .unwrap();
    let items: Vec<_> = model
        .stream(ChatRequest::new(vec![Message::user("Hi")]))
        .collect()
        .await;
    assert!(
        matches!(items.as_slice(), [Err(agentry::model::ModelError::Stream { message })] if message == "boom (server_error)"),
        "{items:?}"
    );
}

#[test]
fn init_chat_model_knows_openai_responses() {
    // SAFETY: no other test in this binary reads or writes these variables.
    unsafe {
        std::env::remove_var("OPENAI_API_KEY");
        std::env::set_var("OPENAI_BASE_URL", "http://127.0.0.1:9/v1");
    }
    let m = init_chat_model("openai-responses:gpt-4.1").unwrap();
    assert_eq!(
        (m.provider(), m.model_name()),
        ("openai-responses", "gpt-4.1")
    );
    unsafe { std::env::remove_var("OPENAI_BASE_URL") };
    let err = init_chat_model("openai-responses:gpt-4.1")
        .err()
        .expect("no key");
    assert!(err.to_string().contains("OPENAI_API_KEY"), "{err}");
}
