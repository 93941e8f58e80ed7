//! ReAct: typed tools for a model without function calling. The agent renders its tools into
//! the prompt, the model writes `Thought:` / `Action:` / `Action Input:`, the loop runs the
//! typed tool and answers `Observation: ...`, until the model writes `Final Answer:`.
//!
//! Offline by default, against the SDK's built-in `MockServer` set to refuse any request that
//! carries `tools` (as servers for models without a tool-calling chat template do) and playing
//! a text-only model. With `OPENAI_BASE_URL` (e.g. `http://localhost:11434/v1` for Ollama, and
//! `OPENAI_MODEL=gemma2:2b`) or `AGENTRY_MODEL` it runs against that model instead.
//!
//! Run: `cargo run --example react`

mod support;

use std::io::Write;

use agentry::agent::AgentEvent;
use agentry::prelude::*;
use agentry::protocol::ToolProtocol;
use agentry::testing::{MockResponse, RecordedRequest};
use futures::StreamExt;

/// Count the letters of a word.
///
/// # Arguments
/// * `word` - The word.
#[tool]
fn get_word_length(word: String) -> usize {
    word.trim().chars().count()
}

/// Multiply two numbers.
///
/// # Arguments
/// * `a` - The first factor.
/// * `b` - The second factor.
#[tool]
fn multiply(a: f64, b: f64) -> f64 {
    a * b
}

/// You answer questions about words. Use the tools; do not count letters yourself.
#[agent(tools(get_word_length, multiply), protocol = react)]
struct WordAgent;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = support::backend(text_only_model).await?;
    if let Some(server) = &backend.server {
        // From here on, a request with `tools` gets a 400, as from a text-only server.
        server.refuse_tools();
    }
    // `protocol = react` in the attribute; `.protocol(ToolProtocol::react())` does the same,
    // and a model whose profile has no tool calling gets ReAct without either.
    let agent = WordAgent::builder(backend.model).max_turns(6).build();
    assert!(matches!(agent.protocol(), ToolProtocol::React(_)));

    let question = "How many letters are in the word \"educa\", times three?";
    println!("question: {question}\n");
    let mut events = agent.stream(question, ());
    // What was printed last in this turn: nothing, the thought, or the final answer.
    let mut printing = "";
    while let Some(event) = events.next().await {
        match event? {
            AgentEvent::TurnStart { turn } => {
                println!("── model request {turn}");
                printing = "";
            }
            AgentEvent::ReasoningDelta { text } => {
                if printing != "thought" {
                    print!("Thought: ");
                    printing = "thought";
                }
                print!("{text}");
                std::io::stdout().flush()?;
            }
            AgentEvent::ToolCallStart { name, .. } => print!("\n  → Action: {name}, input "),
            AgentEvent::ToolCallDelta { arguments, .. } => println!("{arguments}"),
            AgentEvent::ToolResult(step) => match &step.result {
                Ok(out) => println!("  ← Observation: {}", out.text_content()),
                Err(e) => println!("  ← Observation (error): {}", e.model_message()),
            },
            AgentEvent::TextDelta { text } => {
                if printing != "answer" {
                    print!("\nFinal Answer: ");
                    printing = "answer";
                }
                print!("{text}");
                std::io::stdout().flush()?;
            }
            _ => {}
        }
    }
    // The stream ended with `Done`; it keeps the result.
    let run = events.result().await?;
    println!("\n\n── final answer: {}", run.output);
    println!("intermediate steps (action, observation):");
    for step in run.intermediate_steps() {
        println!(
            "  ({}({}), {})",
            step.tool, step.tool_input, step.observation
        );
    }
    println!("usage: {}", run.usage);
    Ok(())
}

/// The offline stand-in for a text-only model: it reads the observations so far from the
/// conversation and writes its next ReAct step. The first input is bare text, as small models
/// often write it; the loop maps it onto the tool's one string argument.
fn text_only_model(request: &RecordedRequest) -> MockResponse {
    let observations: Vec<String> = request.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .flat_map(|text| text.split("\n\n"))
        .filter_map(|part| part.strip_prefix("Observation: "))
        .map(str::to_string)
        .collect();
    let reply = match observations.as_slice() {
        [] => "Thought: I need the length of the word first.\n\
               Action: get_word_length\n\
               Action Input: educa"
            .to_string(),
        [length] => format!(
            "Thought: The word has {length} letters. Now I multiply by three.\n\
             Action: multiply\n\
             Action Input: {{\"a\": {length}, \"b\": 3}}"
        ),
        [.., product] => format!(
            "Thought: I now know the final answer.\n\
             Final Answer: \"educa\" has 5 letters; times three that is {product}."
        ),
    };
    MockResponse::text(reply).split_every(12)
}
