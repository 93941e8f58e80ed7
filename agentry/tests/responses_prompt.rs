//! OpenAI Responses: a stored prompt set on the builder goes out as the request's `prompt`
//! (`{id, version, variables}`), beside the request's own input, whole and streamed.

#[path = "conformance/server.rs"]
mod server;

use agentry::Message;
use agentry::model::{ChatModel, ChatRequest};
use agentry::providers::openai_responses::{OpenAiResponsesModel, PromptVariable, StoredPrompt};
use futures::StreamExt;
use serde_json::json;
use server::{Reply, Server};

fn answer() -> serde_json::Value {
    json!({"id": "resp_1", "model": "gpt-4.1", "status": "completed",
        "output": [{"type": "message", "id": "msg_1", "role": "assistant",
                    "content": [{"type": "output_text", "text": "Hello Acme.", "annotations": []}]}]})
}

fn model(server: &Server, prompt: Option<StoredPrompt>) -> OpenAiResponsesModel {
    let mut builder = OpenAiResponsesModel::builder("gpt-4.1")
        .base_url(server.url())
        .api_key("sk-responses-prompt-0123456789");
    if let Some(prompt) = prompt {
        builder = builder.prompt(prompt);
    }
    builder.build().unwrap()
}

#[tokio::test]
async fn a_stored_prompt_is_sent_with_its_version_and_variables() {
    let server = Server::start(vec![Reply::json(200, &answer())]).await;
    let prompt = StoredPrompt::new("pmpt_123")
        .version("2")
        .variable("customer_name", "Acme")
        .variable(
            "logo",
            PromptVariable::ImageUrl("https://example.com/logo.png".into()),
        );
    let answer = model(&server, Some(prompt))
        .invoke(ChatRequest::new(vec![Message::user("Greet me.")]))
        .await
        .unwrap();
    assert_eq!(answer.message.text(), "Hello Acme.");
    let body = server.request().body;
    assert_eq!(
        body["prompt"],
        json!({"id": "pmpt_123", "version": "2", "variables": {
            "customer_name": "Acme",
            "logo": {"type": "input_image", "image_url": "https://example.com/logo.png"}
        }})
    );
    assert_eq!(body["input"][0]["role"], "user", "{body}");
}

#[tokio::test]
async fn a_streamed_request_sends_the_prompt_too_and_none_is_sent_without_one() {
    let server = Server::start(vec![
        Reply::json(200, &answer()),
        Reply::json(200, &answer()),
    ])
    .await;
    let _ = model(&server, Some(StoredPrompt::new("pmpt_9")))
        .stream(ChatRequest::new(vec![Message::user("Hi")]))
        .collect::<Vec<_>>()
        .await;
    model(&server, None)
        .invoke(ChatRequest::new(vec![Message::user("Hi")]))
        .await
        .unwrap();
    let requests = server.requests();
    assert_eq!(requests[0].body["prompt"], json!({"id": "pmpt_9"}));
    assert_eq!(requests[0].body["stream"], true);
    assert!(requests[1].body.get("prompt").is_none());
}
