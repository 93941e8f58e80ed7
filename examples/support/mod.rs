//! Shared by the examples: pick a real provider when one is configured, otherwise start the
//! SDK's built-in `MockServer` (an in-process OpenAI-compatible server, a test double) and
//! say so. The helpers that play the model's part (reading tool results, answering in the
//! requested output mode) live in `agentry::testing::scripting`.

#![allow(dead_code)] // each example uses part of this module

pub mod python_env;

use agentry::model::{SharedModel, init_chat_model};
use agentry::testing::{MockResponse, MockServer, RecordedRequest};

/// Where the example's model requests go.
pub struct Backend {
    /// The model to give the agent.
    pub model: SharedModel,
    /// Keeps the mock server alive while the example runs (`None` for a real provider).
    pub server: Option<MockServer>,
}

/// The provider the environment asks for, if any:
///
/// * `AGENTRY_MODEL=provider:model` (e.g. `anthropic:claude-sonnet-4-5`, `ollama:llama3.2`;
///   the pre-rename `AGENT_SDK_MODEL` is still read, with a deprecation notice);
/// * `OPENAI_API_KEY` or `OPENAI_BASE_URL` → `openai:$OPENAI_MODEL` (default `gpt-4o-mini`), so
///   any OpenAI-compatible server (Ollama, vLLM, LM Studio) works through `OPENAI_BASE_URL`;
/// * `ANTHROPIC_API_KEY` → `anthropic:claude-sonnet-4-5`;
/// * `GEMINI_API_KEY` or `GOOGLE_API_KEY` → `google:gemini-2.5-flash`.
pub fn configured_model_spec() -> Option<String> {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    if let Ok(spec) = std::env::var("AGENTRY_MODEL")
        && !spec.trim().is_empty()
    {
        return Some(spec);
    }
    if let Ok(spec) = std::env::var("AGENT_SDK_MODEL")
        && !spec.trim().is_empty()
    {
        eprintln!("note: AGENT_SDK_MODEL is deprecated; set AGENTRY_MODEL instead");
        return Some(spec);
    }
    if set("OPENAI_API_KEY") || set("OPENAI_BASE_URL") {
        let model = std::env::var("OPENAI_MODEL").unwrap_or_else(|_| "gpt-4o-mini".to_string());
        return Some(format!("openai:{model}"));
    }
    if set("ANTHROPIC_API_KEY") {
        return Some("anthropic:claude-sonnet-4-5".to_string());
    }
    if set("GEMINI_API_KEY") || set("GOOGLE_API_KEY") {
        return Some("google:gemini-2.5-flash".to_string());
    }
    None
}

/// A real model when the environment configures one; otherwise a `MockServer` answering with
/// `mock` (which plays the model's part, from the request it receives).
pub async fn backend(
    mock: impl Fn(&RecordedRequest) -> MockResponse + Send + Sync + 'static,
) -> Result<Backend, agentry::model::ModelError> {
    if let Some(spec) = configured_model_spec() {
        let model = init_chat_model(&spec)?;
        println!("model: {spec} (a real provider; set by the environment)\n");
        return Ok(Backend {
            model,
            server: None,
        });
    }
    let server = MockServer::with_handler(mock).await;
    let model: SharedModel = std::sync::Arc::new(server.openai_model("mock-gpt"));
    println!(
        "model: the built-in MockServer at {} (offline; set OPENAI_API_KEY, ANTHROPIC_API_KEY, \
         GEMINI_API_KEY, OPENAI_BASE_URL or AGENTRY_MODEL to use a real model)\n",
        server.url()
    );
    Ok(Backend {
        model,
        server: Some(server),
    })
}
