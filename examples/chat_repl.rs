//! A streaming chat in the terminal: type a line, watch the answer arrive token by token; the
//! conversation carries over from turn to turn. Ends at end of input (Ctrl-D) or `/quit`.
//!
//! Offline by default (the built-in `MockServer` plays the model, streaming its answer in small
//! SSE chunks); set `OPENAI_API_KEY` (or another provider's key, see
//! `examples/support/mod.rs`) to chat with a real model.
//!
//! Run: `cargo run --example chat_repl`

mod support;

use std::io::Write;

use agentry::agent::{AgentEvent, Input};
use agentry::prelude::*;
use agentry::testing::{MockResponse, RecordedRequest};
use futures::StreamExt;
use tokio::io::{AsyncBufReadExt, BufReader};

/// The current time of day in UTC, as HH:MM.
#[tool]
fn current_time() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format!("{:02}:{:02} UTC", (secs / 3600) % 24, (secs / 60) % 60)
}

/// You are a friendly, concise assistant.
#[agent(tools(current_time))]
struct Chat;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = support::backend(mock_model).await?;
    let chat = Chat::builder(backend.model).build();
    let mut history: Vec<Message> = Vec::new();
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    println!("chat: type a message (Ctrl-D or /quit to leave)");
    loop {
        print!("> ");
        std::io::stdout().flush()?;
        let Some(line) = lines.next_line().await? else {
            break;
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line == "/quit" {
            break;
        }
        let mut events = chat.stream(Input::with_history(history.clone(), line), ());
        while let Some(event) = events.next().await {
            match event? {
                AgentEvent::TextDelta { text } => {
                    print!("{text}");
                    std::io::stdout().flush()?;
                }
                AgentEvent::ToolCallStart { name, .. } => print!("[{name}…] "),
                _ => {}
            }
        }
        // The stream ended with `Done`; it keeps the result.
        let run = events.result().await?;
        println!("\n  ({})", run.usage);
        history = run.messages.into_vec();
    }
    println!("bye ({} messages in the conversation)", history.len());
    Ok(())
}

/// The offline stand-in for a model: answers about the time through the tool, otherwise
/// echoes, streamed in 8-byte SSE chunks.
fn mock_model(request: &RecordedRequest) -> MockResponse {
    let said = request.last_user_text();
    let results = request.tool_results_since_last_user();
    let answer = if let Some((_, time)) = results.first() {
        format!("It is {time}.")
    } else if said.to_lowercase().contains("time") {
        return MockResponse::tool_calls(vec![ToolCall::new("t", "current_time", "{}")]);
    } else {
        format!("You said “{said}”. (I am the offline mock model; ask me the time.)")
    };
    MockResponse::text(answer).split_every(8)
}
