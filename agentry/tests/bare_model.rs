//! The bare-model API over HTTP against in-process servers: `batch` (a concurrency cap,
//! results in order, each its own `Result`) and `bind_tools` (the tools and the tool choice in
//! each provider's documented shape, typed calls back, dispatched to tool results).

#[path = "conformance/server.rs"]
mod server;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agentry::model::{
    ChatModel, ChatModelExt, ChatRequest, ChatResponse, EventStream, ModelError, ModelProfile,
    ToolChoice,
};
use agentry::prelude::*;
use agentry::providers::anthropic::AnthropicModel;
use agentry::providers::gemini::GeminiModel;
use agentry::providers::openai::OpenAiModel;
use agentry::providers::openai_responses::OpenAiResponsesModel;
use agentry::testing::{MockResponse, MockServer};
use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use server::{Reply, Server};

const KEY: &str = "sk-bare-model-test-0123456789";

/// A model that counts the requests in flight and keeps the most seen at once.
struct Counting<M> {
    inner: M,
    now: AtomicUsize,
    most: AtomicUsize,
}

impl<M: ChatModel> ChatModel for Counting<M> {
    fn model_name(&self) -> &str {
        self.inner.model_name()
    }
    fn provider(&self) -> &str {
        self.inner.provider()
    }
    fn profile(&self) -> &ModelProfile {
        self.inner.profile()
    }
    fn invoke(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        Box::pin(async move {
            let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            let answer = self.inner.invoke(request).await;
            self.now.fetch_sub(1, Ordering::SeqCst);
            answer
        })
    }
    fn stream(&self, request: ChatRequest) -> EventStream {
        self.inner.stream(request)
    }
}

/// Echoes the last user message, after a pause so that requests overlap; `bad` is a 400.
async fn echo_server() -> MockServer {
    MockServer::with_handler(|request| {
        let text = request.body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_owned();
        if text == "bad" {
            return MockResponse::error(400, "bad question", "invalid_request_error", None, None);
        }
        MockResponse::text(format!("echo: {text}")).delay(Duration::from_millis(40))
    })
    .await
}

#[tokio::test]
async fn batch_keeps_order_caps_concurrency_and_fails_alone() {
    let server = echo_server().await;
    let model = Counting {
        inner: server
            .openai_builder("gpt-4o-mini")
            .max_retries(0)
            .build()
            .unwrap(),
        now: AtomicUsize::new(0),
        most: AtomicUsize::new(0),
    };
    let questions = ["a", "b", "bad", "d", "e", "f"];
    let requests = questions.map(|q| ChatRequest::new(vec![Message::user(q)]));
    let answers = model.batch(requests, 2).await;
    assert_eq!(answers.len(), 6);
    for (question, answer) in questions.iter().zip(&answers) {
        match (*question, answer) {
            ("bad", Err(ModelError::InvalidRequest { message, .. })) => {
                assert!(message.contains("bad question"), "{message}")
            }
            (q, Ok(a)) => assert_eq!(a.message.text(), format!("echo: {q}")),
            (q, other) => panic!("{q}: {other:?}"),
        }
    }
    assert_eq!(model.most.load(Ordering::SeqCst), 2);
    assert_eq!(server.request_count(), 6);

    // As completed: every index once, never more than the cap at once.
    model.most.store(0, Ordering::SeqCst);
    let requests: Vec<ChatRequest> = (0..5)
        .map(|i| ChatRequest::new(vec![Message::user(i.to_string())]))
        .collect();
    let mut done: Vec<(usize, String)> = model
        .batch_as_completed(requests, 3)
        .map(|(i, a)| (i, a.unwrap().message.text()))
        .collect()
        .await;
    done.sort();
    let expected: Vec<(usize, String)> = (0..5).map(|i| (i, format!("echo: {i}"))).collect();
    assert_eq!(done, expected);
    assert_eq!(model.most.load(Ordering::SeqCst), 3);
}

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Does sums.
#[agent(tools(add))]
struct Math;

/// Binds `Math` with the tool named, invokes, checks the typed calls and their dispatch, and
/// returns the body sent.
async fn bound_call(model: &dyn ChatModel, server: &Server) -> Value {
    let bound = model
        .bind_tools(Math)
        .tool_choice(ToolChoice::Tool("add".into()));
    let answer = bound
        .invoke(vec![Message::user("2 + 3, and 1 + 1?")])
        .await
        .unwrap();
    assert_eq!(answer.calls.len(), 2, "{:?}", answer.response);
    let mut calls = answer.calls.into_iter();
    let good = calls.next().unwrap();
    let MathToolCall::Add(args) = good.parsed.as_ref().unwrap();
    assert_eq!((args.a, args.b), (2, 3));
    let result = bound.dispatch(good, &ToolRuntime::new()).await;
    let Message::Tool(result) = result else {
        panic!("{result:?}")
    };
    assert_eq!((result.name.as_str(), result.is_error), ("add", false));
    assert_eq!(Message::Tool(result.clone()).text(), "5");

    let wrong = calls.next().unwrap();
    assert!(
        matches!(&wrong.parsed, Err(ToolCallError::UnknownTool { name, .. }) if name == "mul"),
        "{:?}",
        wrong.call
    );
    let Message::Tool(error) = bound.dispatch(wrong, &ToolRuntime::new()).await else {
        panic!()
    };
    assert!(error.is_error);
    assert!(Message::Tool(error).text().contains("unknown tool `mul`"));
    server.request().body
}

#[tokio::test]
async fn bind_tools_openai_chat() {
    let call = |id: &str, name: &str, args: &str| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}});
    let reply = json!({"id": "c1", "model": "gpt-4o", "choices": [{"index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": null, "tool_calls": [
            call("call_1", "add", r#"{"a": 2, "b": 3}"#), call("call_2", "mul", r#"{"a": 1}"#)]}}]});
    let server = Server::start(vec![Reply::json(200, &reply)]).await;
    let model = OpenAiModel::builder("gpt-4o")
        .base_url(format!("{}/v1", server.url()))
        .api_key(KEY)
        .build()
        .unwrap();
    let body = bound_call(&model, &server).await;
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "add");
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "function": {"name": "add"}})
    );
}

#[tokio::test]
async fn bind_tools_openai_responses() {
    let call = |id: &str, name: &str, args: &str| json!({"type": "function_call", "id": format!("fc_{id}"), "call_id": id, "name": name, "arguments": args, "status": "completed"});
    let reply = json!({"id": "resp_1", "model": "gpt-4.1", "status": "completed", "output": [
        call("call_1", "add", r#"{"a": 2, "b": 3}"#), call("call_2", "mul", r#"{"a": 1}"#)]});
    let server = Server::start(vec![Reply::json(200, &reply)]).await;
    let model = OpenAiResponsesModel::builder("gpt-4.1")
        .base_url(format!("{}/v1", server.url()))
        .api_key(KEY)
        .build()
        .unwrap();
    let body = bound_call(&model, &server).await;
    assert_eq!(body["tools"][0]["name"], "add");
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "name": "add"})
    );
}

#[tokio::test]
async fn bind_tools_anthropic() {
    let reply = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 3}},
                    {"type": "tool_use", "id": "toolu_2", "name": "mul", "input": {"a": 1}}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 3, "output_tokens": 2}});
    let server = Server::start(vec![Reply::json(200, &reply)]).await;
    let model = AnthropicModel::builder("claude-sonnet-4-5")
        .base_url(server.url())
        .api_key(KEY)
        .build()
        .unwrap();
    let body = bound_call(&model, &server).await;
    assert_eq!(body["tools"][0]["name"], "add");
    assert!(body["tools"][0]["input_schema"].is_object(), "{body}");
    assert_eq!(body["tool_choice"], json!({"type": "tool", "name": "add"}));
}

#[tokio::test]
async fn bind_tools_gemini() {
    let reply = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}},
            {"functionCall": {"name": "mul", "args": {"a": 1}}}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2}});
    let server = Server::start(vec![Reply::json(200, &reply)]).await;
    let model = GeminiModel::builder("gemini-2.5-flash")
        .base_url(server.url())
        .api_key(KEY)
        .build()
        .unwrap();
    let body = bound_call(&model, &server).await;
    assert_eq!(body["tools"][0]["functionDeclarations"][0]["name"], "add");
    assert_eq!(
        body["toolConfig"]["functionCallingConfig"],
        json!({"mode": "ANY", "allowedFunctionNames": ["add"]})
    );
}

#[tokio::test]
async fn bound_batch_and_settings() {
    let server = echo_server().await;
    let model: Arc<dyn ChatModel> = Arc::new(
        server
            .openai_builder("gpt-4o-mini")
            .max_retries(0)
            .build()
            .unwrap(),
    );
    let mut template = ChatRequest::new(vec![Message::system("Be brief.")]);
    template.temperature = Some(0.2);
    let bound = model
        .bind_tools(Math)
        .request(template)
        .parallel_tool_calls(false)
        .tool_choice(ToolChoice::Auto);
    let answers = bound
        .batch([vec![Message::user("x")], vec![Message::user("y")]], 2)
        .await;
    let texts: Vec<String> = answers
        .into_iter()
        .map(|a| a.unwrap().response.message.text())
        .collect();
    assert_eq!(texts, ["echo: x", "echo: y"]);
    for sent in server.requests() {
        let body = sent.body;
        assert_eq!(body["messages"][0]["role"], "system");
        assert_eq!(body["temperature"], 0.2);
        assert_eq!(body["parallel_tool_calls"], false);
        assert_eq!(body["tool_choice"], "auto");
        assert_eq!(body["tools"][0]["function"]["name"], "add");
    }
}
