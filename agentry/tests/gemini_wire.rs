//! Gemini specifics beyond the conformance suite: `thoughtSignature` round-trip, thought
//! summaries, `SAFETY`, usage with cached and thought tokens, `init_chat_model("google:…")`.

#[path = "conformance/server.rs"]
mod server;

use agentry::model::{ChatModel, ChatRequest, FinishReason, StreamEvent, init_chat_model};
use agentry::providers::gemini::GeminiModel;
use agentry::{ContentBlock, Message, Usage};
use futures::StreamExt;
use serde_json::json;
use server::{Reply, Server, sse_event};

const KEY: &str = "AIza-wire-test-0123456789";

fn model(server: &Server) -> GeminiModel {
    GeminiModel::builder("gemini-2.5-flash")
        .base_url(server.url())
        .api_key(KEY)
        .thinking(-1)
        .build()
        .unwrap()
}

#[tokio::test]
async fn thought_signatures_go_back_on_their_parts() {
    let first = [
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Need the ", "thought": true}]}}], "responseId": "r9"}),
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "weather.", "thought": true, "thoughtSignature": "dGhvdWdodA=="}]}}], "responseId": "r9"}),
        json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "Y2FsbA=="},
            {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}
        ]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 10, "thoughtsTokenCount": 25, "cachedContentTokenCount": 32}, "responseId": "r9"}),
    ]
    .iter()
    .map(|v| sse_event("", v))
    .collect::<String>();
    let done = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "18 and 24.", "thoughtSignature": "dGV4dA=="}]}, "finishReason": "STOP"}]});
    let server = Server::start(vec![
        Reply::sse(first),
        Reply::json(200, &done),
        Reply::json(200, &done),
    ])
    .await;
    let model = model(&server);

    let events: Vec<StreamEvent> = model
        .stream(ChatRequest::new(vec![Message::user("Paris and Rome?")]))
        .map(Result::unwrap)
        .collect()
        .await;
    let reasoning: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ReasoningDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(reasoning, "Need the weather.");
    let Some(StreamEvent::Completed { response: first }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(first.finish_reason, FinishReason::ToolCalls);
    assert_eq!(
        first.usage,
        Usage {
            input_tokens: 40,
            output_tokens: 35,
            cached_input_tokens: 32,
            reasoning_tokens: 25,
            requests: 1,
            ..Usage::default()
        }
    );
    assert_eq!(
        first.message.content[0],
        ContentBlock::Reasoning {
            text: "Need the weather.".into(),
            signature: Some("dGhvdWdodA==".into())
        }
    );

    let mut history = vec![
        Message::user("Paris and Rome?"),
        Message::Assistant(first.message.clone()),
    ];
    for (call, out) in first
        .message
        .tool_calls
        .iter()
        .zip(["18", "{\"temp\": 24}"])
    {
        history.push(Message::tool_result(&call.id, &call.name, out));
    }
    let second = model
        .invoke(ChatRequest::new(history.clone()))
        .await
        .unwrap();
    let sent = &server.requests()[1].body;
    assert_eq!(
        sent["contents"][1]["parts"],
        json!([
            {"text": "Need the weather.", "thought": true, "thoughtSignature": "dGhvdWdodA=="},
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "Y2FsbA=="},
            {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}
        ])
    );
    assert_eq!(
        sent["contents"][2]["parts"],
        json!([
            {"functionResponse": {"name": "get_weather", "response": {"output": 18}}},
            {"functionResponse": {"name": "get_weather", "response": {"output": {"temp": 24}}}}
        ])
    );
    assert_eq!(
        sent["generationConfig"]["thinkingConfig"],
        json!({"includeThoughts": true, "thinkingBudget": -1})
    );

    // A signature on a text part goes back on that text part.
    history.push(Message::Assistant(second.message));
    history.push(Message::user("Thanks"));
    model.invoke(ChatRequest::new(history)).await.unwrap();
    assert_eq!(
        server.requests()[2].body["contents"][3]["parts"],
        json!([{"text": "18 and 24.", "thoughtSignature": "dGV4dA=="}])
    );
}

#[tokio::test]
async fn safety_is_a_content_filter_outcome() {
    let body = json!({"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "SAFETY"}]});
    let server = Server::start(vec![Reply::json(200, &body)]).await;
    let r = model(&server)
        .invoke(ChatRequest::new(vec![Message::user("…")]))
        .await
        .unwrap();
    assert_eq!(r.finish_reason, FinishReason::ContentFilter);
}

#[test]
fn init_chat_model_knows_google_and_names_both_key_variables() {
    // SAFETY: no other test in this binary reads or writes these variables.
    unsafe {
        std::env::remove_var("GEMINI_API_KEY");
        std::env::remove_var("GOOGLE_API_KEY");
        std::env::remove_var("GEMINI_BASE_URL");
    }
    let err = init_chat_model("google:gemini-2.5-flash")
        .err()
        .expect("no key");
    assert!(
        err.to_string().contains("GEMINI_API_KEY or GOOGLE_API_KEY"),
        "{err}"
    );
    let m = GeminiModel::builder("gemini-2.5-flash")
        .env(|k| (k == "GOOGLE_API_KEY").then(|| KEY.to_owned()))
        .build()
        .unwrap();
    assert_eq!(
        m.endpoint(),
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    );
    assert!(!format!("{m:?}").contains(KEY));
}
