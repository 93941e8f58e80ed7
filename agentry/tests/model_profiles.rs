//! Model profiles from the table of known models, as the providers and the agent use them,
//! checked on the request bodies an in-process server receives: reasoning models get their
//! reasoning settings and no temperature, the output strategy follows what a model supports,
//! a model without function calling runs tools through ReAct, and overrides win.

#[path = "conformance/server.rs"]
mod server;

use agentry::agent::{AgentBuilder, NoTools};
use agentry::model::{ChatModel, ChatRequest, ModelProfile, chat_model_builder, init_chat_model};
use agentry::output::{OutputMode, StructuredSpec};
use agentry::prelude::*;
use agentry::providers::anthropic::AnthropicModel;
use agentry::providers::openai::OpenAiModel;
use agentry::providers::openai_responses::OpenAiResponsesModel;
use serde_json::{Value, json};
use server::{Reply, Server};

const KEY: &str = "sk-profiles-test-0123456789";

fn chat_answer(text: &str) -> Reply {
    Reply::json(
        200,
        &json!({"id": "c1", "model": "m", "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}),
    )
}

fn responses_answer(text: &str) -> Reply {
    Reply::json(
        200,
        &json!({"id": "resp_1", "model": "m", "status": "completed", "output": [{"type": "message",
            "id": "msg_1", "role": "assistant", "content": [{"type": "output_text", "text": text, "annotations": []}]}]}),
    )
}

fn claude_answer(text: &str) -> Reply {
    Reply::json(
        200,
        &json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 3, "output_tokens": 2}}),
    )
}

fn gemini_answer(text: &str) -> Reply {
    Reply::json(
        200,
        &json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2}}),
    )
}

fn sampled() -> ChatRequest {
    let mut req = ChatRequest::new(vec![Message::user("Hi")]);
    req.temperature = Some(0.3);
    req.top_p = Some(0.9);
    req.max_tokens = Some(100);
    req
}

#[tokio::test]
async fn openai_reasoning_models_get_their_effort_and_no_temperature() {
    let server = Server::start(vec![chat_answer("a"), chat_answer("b")]).await;
    let url = format!("{}/v1", server.url());
    let o3 = OpenAiModel::builder("o3-2025-04-16")
        .base_url(&url)
        .api_key(KEY)
        .reasoning_effort("low")
        .build()
        .unwrap();
    assert_eq!(o3.profile().context_window, Some(200_000));
    o3.invoke(sampled()).await.unwrap();
    let gpt4o = OpenAiModel::builder("gpt-4o-2024-08-06")
        .base_url(&url)
        .api_key(KEY)
        .build()
        .unwrap();
    assert!(!gpt4o.profile().reasoning);
    gpt4o.invoke(sampled()).await.unwrap();

    let sent = server.requests();
    let reasoning = &sent[0].body;
    assert_eq!(reasoning["model"], "o3-2025-04-16");
    assert_eq!(reasoning["reasoning_effort"], "low");
    assert_eq!(reasoning["max_completion_tokens"], 100);
    assert!(reasoning.get("temperature").is_none(), "{reasoning}");
    assert!(reasoning.get("top_p").is_none(), "{reasoning}");
    let plain = &sent[1].body;
    assert_eq!(plain["temperature"], 0.3);
    assert_eq!(plain["top_p"], 0.9);
    assert!(plain.get("reasoning_effort").is_none(), "{plain}");
}

#[tokio::test]
async fn responses_reasoning_models_carry_encrypted_reasoning_without_temperature() {
    let server = Server::start(vec![responses_answer("a"), responses_answer("b")]).await;
    let url = format!("{}/v1", server.url());
    for model in ["gpt-5-mini-2025-08-07", "gpt-4.1"] {
        let m = OpenAiResponsesModel::builder(model)
            .base_url(&url)
            .api_key(KEY)
            .build()
            .unwrap();
        assert!(!m.profile().seed);
        m.invoke(sampled()).await.unwrap();
    }
    let sent = server.requests();
    let reasoning = &sent[0].body;
    assert_eq!(reasoning["include"], json!(["reasoning.encrypted_content"]));
    assert!(reasoning.get("temperature").is_none(), "{reasoning}");
    assert!(reasoning.get("reasoning").is_none(), "{reasoning}");
    let plain = &sent[1].body;
    assert_eq!(plain["temperature"], 0.3);
    assert!(plain.get("include").is_none(), "{plain}");
}

/// A film.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Film {
    /// Its title.
    title: String,
}

#[tokio::test]
async fn the_agents_output_strategy_follows_the_table() {
    let film = r#"{"title": "Inception"}"#;
    let server = Server::start(vec![claude_answer(film), claude_answer(film)]).await;
    let claude = |model: &str| {
        AnthropicModel::builder(model)
            .base_url(server.url())
            .api_key(KEY)
            .build()
            .unwrap()
    };
    // Claude Sonnet 4.5 takes a JSON schema natively; Claude 3.5 Sonnet answers through a tool.
    for model in ["claude-sonnet-4-5-20250929", "claude-3-5-sonnet-20241022"] {
        let agent = AgentBuilder::<_, _, (), ()>::new(claude(model), NoTools)
            .output(StructuredSpec::<Film>::new(OutputMode::Auto))
            .build();
        // The tool-mode answer is text, which the agent re-asks about; only the request matters.
        let _ = agent.run("Name a film.", ()).await;
    }
    let sent = server.requests();
    let native = &sent[0].body;
    assert_eq!(native["output_config"]["format"]["type"], "json_schema");
    assert!(native.get("tools").is_none(), "{native}");
    let tool = &sent[1].body;
    assert!(tool.get("output_config").is_none(), "{tool}");
    assert_eq!(tool["tools"].as_array().map(Vec::len), Some(1), "{tool}");

    // Asked for native output anyway, the old model refuses before sending.
    let err = claude("claude-3-5-sonnet-latest")
        .structured::<Film>()
        .mode(OutputMode::Native)
        .invoke(vec![Message::user("Name a film.")])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("structured output"), "{err}");
    assert_eq!(server.requests().len(), 2);
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

/// Adds numbers.
#[agent(tools(add))]
struct Adder;

#[tokio::test]
async fn a_model_without_function_calling_gets_react() {
    let server = Server::start(vec![chat_answer("Thought: easy.\nFinal Answer: 5")]).await;
    let o1_mini = OpenAiModel::builder("o1-mini-2024-09-12")
        .base_url(format!("{}/v1", server.url()))
        .api_key(KEY)
        .build()
        .unwrap();
    assert!(!o1_mini.profile().tool_calling);
    let out = Adder::builder(o1_mini)
        .build()
        .run("2 + 3?", ())
        .await
        .unwrap();
    assert_eq!(out.output, "5");
    let body = &server.request().body;
    assert!(body.get("tools").is_none(), "{body}");
    let prompt = body["messages"].to_string();
    assert!(prompt.contains("Action Input"), "{prompt}");
}

#[tokio::test]
async fn overrides_win_over_the_table() {
    let film = r#"{"title": "Inception"}"#;
    let server = Server::start(vec![claude_answer(film)]).await;
    let claude = AnthropicModel::builder("claude-3-5-sonnet-latest")
        .base_url(server.url())
        .api_key(KEY)
        .adjust_profile(|p| {
            p.native_structured_output = true;
            p.context_window = Some(100_000);
        })
        .build()
        .unwrap();
    assert_eq!(claude.profile().context_window, Some(100_000));
    assert_eq!(claude.profile().max_output_tokens, Some(8_192));
    let film: Film = claude
        .structured::<Film>()
        .invoke(vec![Message::user("Name a film.")])
        .await
        .unwrap();
    assert_eq!(film.title, "Inception");
    assert_eq!(
        server.request().body["output_config"]["format"]["type"],
        "json_schema"
    );

    let replaced = OpenAiModel::builder("gpt-4o")
        .api_key(KEY)
        .profile(ModelProfile::text_only())
        .build()
        .unwrap();
    assert_eq!(replaced.profile(), &ModelProfile::text_only());
}

#[tokio::test]
async fn init_chat_model_consults_the_table() {
    let server = Server::start(vec![
        chat_answer("a"),
        claude_answer("b"),
        gemini_answer("c"),
    ])
    .await;
    // SAFETY: the only test in this binary that reads or writes these variables; the others
    // give every builder its base URL and key.
    unsafe {
        std::env::set_var("OPENAI_BASE_URL", format!("{}/v1", server.url()));
        std::env::set_var("ANTHROPIC_BASE_URL", server.url());
        std::env::set_var("GEMINI_BASE_URL", server.url());
    }
    let gpt5 = init_chat_model("openai:gpt-5-nano").unwrap();
    assert!(gpt5.profile().reasoning);
    assert_eq!(gpt5.profile().max_output_tokens, Some(128_000));
    gpt5.invoke(sampled()).await.unwrap();
    let haiku = init_chat_model("anthropic:claude-haiku-4-5").unwrap();
    assert_eq!(haiku.profile().context_window, Some(200_000));
    haiku.invoke(sampled()).await.unwrap();
    let flash = init_chat_model("gemini:gemini-2.0-flash-001").unwrap();
    assert!(!flash.profile().reasoning && flash.profile().audio_input);
    assert_eq!(flash.profile().max_output_tokens, Some(8_192));
    flash.invoke(sampled()).await.unwrap();
    // An OpenAI model the table does not know: OpenAI's defaults.
    let unknown = chat_model_builder("openai:gpt-6-preview")
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(
        unknown.profile(),
        &ModelProfile::provider_default("openai").unwrap()
    );

    let sent = server.requests();
    let openai: &Value = &sent[0].body;
    assert!(openai.get("temperature").is_none(), "{openai}");
    assert_eq!(openai["max_completion_tokens"], 100);
    // Claude and Gemini take a temperature from a reasoning-capable model with thinking off.
    assert_eq!(sent[1].body["temperature"], 0.3);
    assert_eq!(sent[2].body["generationConfig"]["temperature"], 0.3);
}
