//! A terminal chat that remembers across restarts: the conversation and a typed state live in
//! a thread of a SQLite file. Quit, run it again, and the chat goes on where it stopped; a
//! run killed mid-answer is recovered when the chat starts again.
//!
//! Offline by default (the built-in `MockServer` plays the model: tell it "my name is Ada",
//! quit, start again and ask "what is my name?"); set `OPENAI_API_KEY` (or another provider's
//! key, see `examples/support/mod.rs`) to chat with a real model.
//!
//! Run: `cargo run --example chat_memory [-- <file.db> [<thread id>]]` — the file defaults to
//! `agentry-chat-memory.db` in the temporary directory, the thread to `me`.
//! Commands: `/history` (the thread's checkpoints), `/forget` (delete the thread), `/quit`.

mod support;

use std::io::Write;

use agentry::agent::{AgentEvent, ThreadStatus};
use agentry::persist::SqliteCheckpointer;
use agentry::prelude::*;
use agentry::testing::{MockResponse, RecordedRequest};
use futures::StreamExt;
use tokio::io::{AsyncBufReadExt, BufReader};

/// What the assistant knows about the user, saved with the conversation.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Memory {
    facts: Vec<String>,
}

/// Remember a fact about the user for later conversations.
///
/// # Arguments
/// * `fact` - The fact, in a few words.
#[tool(idempotent)]
fn remember(fact: String, memory: State<Memory>) -> String {
    let reply = format!("remembered: {fact}");
    memory.update(move |m| {
        if !m.facts.contains(&fact) {
            m.facts.push(fact);
        }
    });
    reply
}

/// You are a friendly, concise assistant. When the user tells you something about
/// themselves, call `remember` with it.
#[agent(tools(remember), state = Memory)]
struct Chat;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("agentry-chat-memory.db"));
    let thread_id = args.next().unwrap_or_else(|| "me".to_string());

    let backend = support::backend(mock_model).await?;
    let chat = Chat::builder(backend.model)
        .checkpointer(SqliteCheckpointer::open(&path).await?)
        .build();
    let thread = chat.thread(&thread_id);
    println!("memory: thread `{thread_id}` in {}", path.display());
    match thread.status().await? {
        ThreadStatus::New => println!("a new conversation"),
        ThreadStatus::Running => {
            println!("the last run did not finish: recovering it");
            let run = thread.recover(()).await?.finished();
            if let Some(run) = run {
                println!("< {}", run.output);
            }
        }
        _ => {
            let messages = thread.messages().await?;
            let memory = thread.state().await?.unwrap_or_default();
            println!(
                "continuing: {} messages so far; remembered: {:?}",
                messages.len(),
                memory.facts
            );
        }
    }

    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    println!("type a message (Ctrl-D or /quit to leave)");
    loop {
        print!("> ");
        std::io::stdout().flush()?;
        let Some(line) = lines.next_line().await? else {
            break;
        };
        match line.trim() {
            "" => continue,
            "/quit" => break,
            "/history" => {
                for checkpoint in thread.history(20).await? {
                    println!(
                        "  step {:>3}: {} messages",
                        checkpoint.step, checkpoint.message_count
                    );
                }
                continue;
            }
            "/forget" => {
                thread.delete().await?;
                println!("forgotten");
                continue;
            }
            said => {
                let mut events = thread.stream(said, ());
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
                println!("\n  (remembered: {:?})", run.state.facts);
            }
        }
    }
    println!(
        "bye: {} messages saved in thread `{thread_id}`",
        thread.messages().await?.len()
    );
    Ok(())
}

/// The offline stand-in for a model. It reads the whole conversation it is sent — which,
/// after a restart, comes from the SQLite file.
fn mock_model(request: &RecordedRequest) -> MockResponse {
    let said = request.last_user_text();
    if let Some((_, result)) = request.tool_results_since_last_user().first() {
        return MockResponse::text(format!("Got it ({result}).")).split_every(8);
    }
    let name_in = |text: &str| {
        let prefix = "my name is ";
        text.to_lowercase().starts_with(prefix).then(|| {
            text[prefix.len()..]
                .trim()
                .trim_end_matches('.')
                .to_string()
        })
    };
    if let Some(name) = name_in(&said) {
        let args = serde_json::json!({ "fact": format!("name is {name}") }).to_string();
        return MockResponse::tool_calls(vec![ToolCall::new("r1", "remember", args)]);
    }
    let users: Vec<&str> = request.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .collect();
    let answer = if said.to_lowercase().contains("my name") {
        match users.iter().rev().find_map(|u| name_in(u)) {
            Some(name) => format!("Your name is {name}."),
            None => "You have not told me your name yet.".to_string(),
        }
    } else {
        format!(
            "You said “{said}”. This conversation has {} user messages so far. (I am the offline mock model; tell me your name, restart, and ask me for it.)",
            users.len()
        )
    };
    MockResponse::text(answer).split_every(8)
}
