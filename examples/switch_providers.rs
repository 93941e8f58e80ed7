//! One agent, any provider: `init_chat_model("provider:model")` picks the wire format, base
//! URL and key variable; the agent code does not change.
//!
//! Offline, it builds a model for each provider (no request is sent: building never touches
//! the network), shows what each supports, and runs the agent against the built-in
//! `MockServer`. With keys set (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`, or
//! `AGENTRY_MODEL=provider:model`), it runs the same agent on each configured provider.
//!
//! Run: `cargo run --example switch_providers`

mod support;

use agentry::model::{SharedModel, init_chat_model};
use agentry::prelude::*;
use agentry::testing::MockResponse;

/// Convert a temperature from Celsius to Fahrenheit.
///
/// # Arguments
/// * `celsius` - The temperature in degrees Celsius.
#[tool]
fn to_fahrenheit(celsius: f64) -> f64 {
    celsius * 9.0 / 5.0 + 32.0
}

/// You convert temperatures. Always use the tool; answer in one short sentence.
#[agent(tools(to_fahrenheit))]
struct Converter;

const QUESTION: &str = "What is 21.5 °C in Fahrenheit?";

async fn ask(model: SharedModel) -> Result<String, Box<dyn std::error::Error>> {
    let run = Converter::builder(model)
        .max_turns(4)
        .build()
        .run(QUESTION, ())
        .await?;
    Ok(format!("{} ({})", run.output, run.usage))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("building a model per provider (no network):");
    for spec in [
        "openai:gpt-4o-mini",
        "openai-responses:gpt-4.1",
        "anthropic:claude-sonnet-4-5",
        "google:gemini-2.5-flash",
        "ollama:llama3.2",
        "vllm:meta-llama/Llama-3.1-8B-Instruct",
    ] {
        match init_chat_model(spec) {
            Ok(model) => {
                let p = model.profile();
                println!(
                    "  {spec:<40} ok: native structured output {}, strict tools {}, tool_choice=required {}",
                    p.native_structured_output, p.strict_tools, p.tool_choice_required
                );
            }
            // Hosted providers need their key; the error names the variable.
            Err(e) => println!("  {spec:<40} {e}"),
        }
    }

    let configured: Vec<String> = [
        std::env::var("AGENTRY_MODEL").ok(),
        std::env::var("OPENAI_API_KEY")
            .ok()
            .map(|_| "openai:gpt-4o-mini".to_string()),
        std::env::var("ANTHROPIC_API_KEY")
            .ok()
            .map(|_| "anthropic:claude-sonnet-4-5".to_string()),
        std::env::var("GEMINI_API_KEY")
            .or_else(|_| std::env::var("GOOGLE_API_KEY"))
            .ok()
            .map(|_| "google:gemini-2.5-flash".to_string()),
    ]
    .into_iter()
    .flatten()
    .collect();

    println!("\n{QUESTION}");
    if configured.is_empty() {
        let backend = support::backend(|request| match request.tool_results().first() {
            Some((_, fahrenheit)) => MockResponse::text(format!("21.5 °C is {fahrenheit} °F.")),
            None => MockResponse::tool_calls(vec![ToolCall::new(
                "c",
                "to_fahrenheit",
                r#"{"celsius":21.5}"#,
            )]),
        })
        .await?;
        println!("  mock: {}", ask(backend.model).await?);
    }
    for spec in configured {
        match init_chat_model(&spec) {
            Ok(model) => match ask(model).await {
                Ok(answer) => println!("  {spec}: {answer}"),
                Err(e) => println!("  {spec}: failed: {e}"),
            },
            Err(e) => println!("  {spec}: {e}"),
        }
    }
    Ok(())
}
