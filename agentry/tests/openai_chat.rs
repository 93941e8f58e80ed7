//! OpenAI Chat Completions, non-streamed: request lowering, answers and settings, against the
//! in-process mock server; the key, the base URL, network denial and usage tracking are in
//! `openai_chat/setup.rs`.

use std::sync::Arc;

use agentry::message::{AssistantMessage, ContentBlock, ImageSource, UserMessage};
use agentry::model::{
    ChatModel, ChatRequest, FinishReason, ModelError, ModelProfile, ResponseFormat, ToolChoice,
    UsageTracker, chat_model_builder,
};
use agentry::providers::openai::{MaxTokensField, OpenAiModel};
use agentry::testing::{MockResponse, MockServer};
use agentry::tool::DefinitionRef;
use agentry::{Message, ToolCall, ToolDefinition, Usage};
use futures::StreamExt;
use serde_json::json;

#[path = "openai_chat/setup.rs"]
mod setup;

fn weather_tool(strict: bool) -> DefinitionRef {
    ToolDefinition::new(
        "get_weather",
        "Current weather for a city.",
        json!({
            "type": "object",
            "properties": {
                "city": { "type": "string", "description": "City name." },
                "days": { "type": ["integer", "null"] }
            },
            "required": ["city"]
        }),
        strict,
    )
    .into()
}

fn conversation() -> Vec<Message> {
    vec![
        Message::system("You are terse."),
        Message::user("Weather in Paris and Rome?"),
        Message::Assistant(AssistantMessage {
            content: vec![
                ContentBlock::Reasoning {
                    text: "I should call the tool twice.".into(),
                    signature: None,
                },
                ContentBlock::text("Checking."),
            ],
            tool_calls: vec![
                ToolCall::new("call_1", "get_weather", r#"{"city":"Paris"}"#),
                // Some compatible servers send an empty id: it must round-trip.
                ToolCall::new("", "get_weather", r#"{"city":"Rome"}"#),
            ],
            refusal: None,
        }),
        Message::tool_result("call_1", "get_weather", "18°C"),
        Message::tool_result("", "get_weather", "21°C"),
    ]
}

#[tokio::test]
async fn request_body_follows_the_wire_format() {
    let server = MockServer::with_script([MockResponse::text("ok")]).await;
    let model = server
        .openai_builder("gpt-4o-mini")
        .header("OpenAI-Organization", "org-test")
        .build()
        .unwrap();
    let mut req = ChatRequest::new(conversation());
    req.tools = vec![weather_tool(true), {
        let mut t = ToolDefinition::new(
            "search",
            "Search the web.",
            json!({"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}),
            false,
        );
        t.strict = false;
        t.into()
    }]
    .into();
    req.tool_choice = Some(ToolChoice::Tool("get_weather".into()));
    req.parallel_tool_calls = Some(false);
    req.temperature = Some(0.25);
    req.max_tokens = Some(256);
    req.stop = vec!["END".into()];
    req.seed = Some(42);
    model.invoke(req).await.unwrap();

    let recorded = &server.requests()[0];
    assert_eq!(recorded.path, "/v1/chat/completions");
    assert_eq!(
        recorded.header("authorization"),
        Some("Bearer sk-mock-key-0000")
    );
    assert_eq!(recorded.header("openai-organization"), Some("org-test"));
    assert_eq!(recorded.header("content-type"), Some("application/json"));
    assert_eq!(
        recorded.header("user-agent"),
        Some(concat!("agentry/", env!("CARGO_PKG_VERSION")))
    );
    let body = &recorded.body;
    assert_eq!(body["model"], "gpt-4o-mini");
    assert_eq!(
        body["messages"],
        json!([
            { "role": "system", "content": "You are terse." },
            { "role": "user", "content": "Weather in Paris and Rome?" },
            { "role": "assistant", "content": "Checking.", "tool_calls": [
                { "id": "call_1", "type": "function", "function": { "name": "get_weather", "arguments": "{\"city\":\"Paris\"}" } },
                { "id": "", "type": "function", "function": { "name": "get_weather", "arguments": "{\"city\":\"Rome\"}" } }
            ] },
            { "role": "tool", "tool_call_id": "call_1", "content": "18°C" },
            { "role": "tool", "tool_call_id": "", "content": "21°C" }
        ])
    );
    // Strict tool: lowered in the strict dialect and flagged; plain tool: no `strict`.
    let strict_tool = &body["tools"][0];
    assert_eq!(strict_tool["type"], "function");
    assert_eq!(strict_tool["function"]["name"], "get_weather");
    assert_eq!(strict_tool["function"]["strict"], true);
    assert_eq!(
        strict_tool["function"]["parameters"]["additionalProperties"],
        false
    );
    assert_eq!(
        strict_tool["function"]["parameters"]["required"],
        json!(["city", "days"])
    );
    assert!(body["tools"][1]["function"].get("strict").is_none());
    assert_eq!(
        body["tools"][1]["function"]["parameters"]["required"],
        json!(["q"])
    );
    assert_eq!(
        body["tool_choice"],
        json!({ "type": "function", "function": { "name": "get_weather" } })
    );
    assert_eq!(body["parallel_tool_calls"], false);
    assert_eq!(body["temperature"], 0.25);
    assert_eq!(body["max_completion_tokens"], 256);
    assert!(body.get("max_tokens").is_none());
    assert_eq!(body["stop"], json!(["END"]));
    assert_eq!(body["seed"], 42);
    assert!(body.get("stream").is_none());
    assert!(body.get("stream_options").is_none());
    assert!(body.get("response_format").is_none());
}

#[tokio::test]
async fn a_user_agent_set_as_a_header_replaces_the_sdks_on_plain_and_streamed_requests() {
    let server = MockServer::with_script([MockResponse::text("a"), MockResponse::text("b")]).await;
    let model = server
        .openai_builder("gpt-4o-mini")
        .header("User-Agent", "my-app/2.1")
        .build()
        .unwrap();
    model
        .invoke(ChatRequest::new(vec![Message::user("hi")]))
        .await
        .unwrap();
    let events: Vec<_> = model
        .stream(ChatRequest::new(vec![Message::user("hi")]))
        .collect()
        .await;
    assert!(events.iter().all(Result::is_ok), "{events:?}");
    for recorded in server.requests() {
        let sent: Vec<_> = recorded
            .headers
            .iter()
            .filter(|(name, _)| name == "user-agent")
            .map(|(_, value)| value.as_str())
            .collect();
        assert_eq!(sent, ["my-app/2.1"], "{}", recorded.path);
    }
}

#[tokio::test]
async fn images_and_tool_choice_modes() {
    let server = MockServer::with_handler(|_| MockResponse::text("ok")).await;
    let model = server.openai_model("gpt-4o");
    let user = Message::User(UserMessage {
        content: vec![
            ContentBlock::text("What is this?"),
            ContentBlock::Image {
                source: ImageSource::Url {
                    url: "https://example.invalid/cat.png".into(),
                },
            },
            ContentBlock::Image {
                source: ImageSource::Base64 {
                    media_type: "image/png".into(),
                    data: "iVBORw0K".into(),
                },
            },
        ],
    });
    for (choice, wire) in [
        (ToolChoice::Auto, json!("auto")),
        (ToolChoice::None, json!("none")),
        (ToolChoice::Required, json!("required")),
    ] {
        let mut req = ChatRequest::new(vec![user.clone()]);
        req.tools = vec![weather_tool(false)].into();
        req.tool_choice = Some(choice);
        model.invoke(req).await.unwrap();
        assert_eq!(server.requests().last().unwrap().body["tool_choice"], wire);
    }
    let body = &server.requests()[0].body;
    assert_eq!(
        body["messages"][0]["content"],
        json!([
            { "type": "text", "text": "What is this?" },
            { "type": "image_url", "image_url": { "url": "https://example.invalid/cat.png" } },
            { "type": "image_url", "image_url": { "url": "data:image/png;base64,iVBORw0K" } }
        ])
    );
}

#[tokio::test]
async fn response_format_json_schema_is_lowered_strictly() {
    let server = MockServer::with_script([MockResponse::text(r#"{"city":"Paris"}"#)]).await;
    let model = server.openai_model("gpt-4o-mini");
    let mut req = ChatRequest::new(vec![Message::user("Pick a city")]);
    req.response_format = Some(ResponseFormat::JsonSchema {
        name: "City<Choice>".into(),
        description: Some("A city.".into()),
        schema: json!({ "type": "object", "properties": { "city": { "type": "string" }, "note": { "type": "string" } }, "required": ["city"] }),
        strict: true,
    });
    let answer = model.invoke(req).await.unwrap();
    assert_eq!(answer.message.text(), r#"{"city":"Paris"}"#);
    let rf = &server.requests()[0].body["response_format"];
    assert_eq!(rf["type"], "json_schema");
    assert_eq!(
        rf["json_schema"]["name"], "City_Choice_",
        "name made valid for OpenAI"
    );
    assert_eq!(rf["json_schema"]["description"], "A city.");
    assert_eq!(rf["json_schema"]["strict"], true);
    assert_eq!(rf["json_schema"]["schema"]["additionalProperties"], false);
    assert_eq!(
        rf["json_schema"]["schema"]["required"],
        json!(["city", "note"])
    );

    let mut req = ChatRequest::new(vec![Message::user("JSON please")]);
    req.response_format = Some(ResponseFormat::JsonObject);
    model.invoke_with_default_answer(&server, req).await;
    assert_eq!(
        server.requests()[1].body["response_format"],
        json!({ "type": "json_object" })
    );
}

/// Queues a default answer and invokes.
trait InvokeExt {
    async fn invoke_with_default_answer(&self, server: &MockServer, req: ChatRequest);
}

impl InvokeExt for OpenAiModel {
    async fn invoke_with_default_answer(&self, server: &MockServer, req: ChatRequest) {
        server.push(MockResponse::text("{}"));
        self.invoke(req).await.unwrap();
    }
}

#[tokio::test]
async fn unsupported_settings_are_refused_or_dropped_before_sending() {
    let server = MockServer::with_handler(|_| MockResponse::text("ok")).await;
    let compat = OpenAiModel::compatible("llama3.2", server.url())
        .build()
        .unwrap();
    assert_eq!(compat.profile(), &ModelProfile::conservative());

    let mut schema_req = ChatRequest::new(vec![Message::user("x")]);
    schema_req.response_format = Some(ResponseFormat::JsonSchema {
        name: "X".into(),
        description: None,
        schema: json!({ "type": "object", "properties": {}, "required": [] }),
        strict: true,
    });
    let err = compat.invoke(schema_req).await.unwrap_err();
    assert!(
        matches!(&err, ModelError::Unsupported { model, setting } if model == "llama3.2" && setting.contains("json_schema")),
        "{err}"
    );

    for choice in [ToolChoice::Required, ToolChoice::Tool("get_weather".into())] {
        let mut req = ChatRequest::new(vec![Message::user("x")]);
        req.tools = vec![weather_tool(false)].into();
        req.tool_choice = Some(choice);
        assert!(matches!(
            compat.invoke(req).await,
            Err(ModelError::Unsupported { .. })
        ));
    }
    assert_eq!(server.request_count(), 0, "refused requests are never sent");

    // Dropped with a warning: strict flag, seed; `max_tokens` is the compatible field.
    let mut req = ChatRequest::new(vec![Message::user("x")]);
    req.tools = vec![weather_tool(true)].into();
    req.seed = Some(7);
    req.max_tokens = Some(64);
    compat.invoke(req).await.unwrap();
    let body = &server.requests()[0].body;
    assert!(body.get("seed").is_none());
    assert_eq!(body["max_tokens"], 64);
    assert!(body.get("max_completion_tokens").is_none());
    assert!(body["tools"][0]["function"].get("strict").is_none());
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["required"],
        json!(["city"])
    );

    // A reasoning model does not get a temperature.
    let reasoning = server
        .openai_builder("o3-mini")
        .profile(ModelProfile {
            reasoning: true,
            ..ModelProfile::full()
        })
        .max_tokens_field(MaxTokensField::MaxCompletionTokens)
        .build()
        .unwrap();
    let mut req = ChatRequest::new(vec![Message::user("x")]);
    req.temperature = Some(0.7);
    reasoning.invoke(req).await.unwrap();
    assert!(server.requests()[1].body.get("temperature").is_none());
}

#[tokio::test]
async fn user_mistakes_are_typed_errors_before_sending() {
    let server = MockServer::start().await;
    let model = server.openai_model("gpt-4o-mini");
    let mut req = ChatRequest::new(vec![Message::user("x")]);
    req.tools = vec![weather_tool(false)].into();
    req.tool_choice = Some(ToolChoice::Tool("nope".into()));
    let err = model.invoke(req).await.unwrap_err();
    assert!(
        matches!(&err, ModelError::InvalidRequest { param: Some(p), .. } if p == "tool_choice"),
        "{err}"
    );

    let mut req = ChatRequest::new(vec![Message::user("x")]);
    req.tool_choice = Some(ToolChoice::Required);
    assert!(matches!(
        model.invoke(req).await,
        Err(ModelError::InvalidRequest { .. })
    ));

    // A strict tool whose schema strict mode cannot express: a schema error, nothing sent.
    let mut req = ChatRequest::new(vec![Message::user("x")]);
    req.tools = vec![ToolDefinition::new(
        "tag",
        "Tag things.",
        json!({ "type": "object", "properties": { "tags": { "type": "object", "additionalProperties": { "type": "string" } } }, "required": ["tags"] }),
        true,
    )
    .into()].into();
    let err = model.invoke(req).await.unwrap_err();
    assert!(matches!(err, ModelError::Schema(_)), "{err}");
    assert_eq!(server.request_count(), 0);
}

#[tokio::test]
async fn answers_are_decoded() {
    let usage = Usage {
        input_tokens: 120,
        output_tokens: 40,
        cached_input_tokens: 100,
        reasoning_tokens: 16,
        requests: 1,
        ..Usage::default()
    };
    let server = MockServer::with_script([
        MockResponse::text("Bonjour")
            .usage(usage)
            .reasoning("Think in French.")
            .model("gpt-4o-mini-2024-07-18"),
        MockResponse::tool_calls(vec![
            ToolCall::new("call_a", "get_weather", r#"{"city":"Paris"}"#),
            ToolCall::new("", "get_weather", r#"{"city":"Rome"}"#),
        ]),
        MockResponse::refusal("I can't help with that."),
        MockResponse::text("truncat").finish_reason("length"),
        MockResponse::text("").finish_reason("content_filter"),
        MockResponse::text("?").finish_reason("something_new"),
    ])
    .await;
    let model = server.openai_model("gpt-4o-mini");
    let ask = || ChatRequest::new(vec![Message::user("hi")]);

    let a = model.invoke(ask()).await.unwrap();
    assert_eq!(a.message.text(), "Bonjour");
    assert_eq!(
        a.message.content[0],
        ContentBlock::Reasoning {
            text: "Think in French.".into(),
            signature: None
        }
    );
    assert_eq!(a.usage, usage);
    assert_eq!(a.finish_reason, FinishReason::Stop);
    assert_eq!(a.model, "gpt-4o-mini-2024-07-18");
    assert_eq!(a.id.as_deref(), Some("chatcmpl-mock"));

    let a = model.invoke(ask()).await.unwrap();
    assert_eq!(a.finish_reason, FinishReason::ToolCalls);
    // The empty id is replaced by a unique one before the answer enters the history.
    let rome = &a.message.tool_calls[1];
    assert!(
        rome.id.starts_with("call_") && rome.id != "call_a",
        "{rome:?}"
    );
    assert_eq!(rome.arguments, r#"{"city":"Rome"}"#);

    let mut history = vec![Message::user("hi"), Message::Assistant(a.message.clone())];
    history.push(Message::tool_result("call_a", "get_weather", "18°C"));
    let rome_id = rome.id.clone();
    history.push(Message::tool_result(rome_id.clone(), "get_weather", "21°C"));
    server.push(MockResponse::text("Paris 18, Rome 21"));

    let a = model.invoke(ask()).await.unwrap();
    assert_eq!(
        a.message.refusal.as_deref(),
        Some("I can't help with that.")
    );
    assert_eq!(a.finish_reason, FinishReason::Refusal);
    assert_eq!(
        model.invoke(ask()).await.unwrap().finish_reason,
        FinishReason::Length
    );
    assert_eq!(
        model.invoke(ask()).await.unwrap().finish_reason,
        FinishReason::ContentFilter
    );
    assert_eq!(
        model.invoke(ask()).await.unwrap().finish_reason,
        FinishReason::Other("something_new".into())
    );

    let a = model.invoke(ChatRequest::new(history)).await.unwrap();
    assert_eq!(a.message.text(), "Paris 18, Rome 21");
    let sent = &server.requests()[6].body["messages"];
    assert_eq!(sent[1]["tool_calls"][1]["id"], rome_id.as_str());
    assert_eq!(sent[3]["tool_call_id"], rome_id.as_str());
}
