//! Web chat: an agent served to a browser. One command starts a chat page on localhost that
//! streams the answer as it is written, shows each tool call and its result, asks you to
//! Approve or Reject a booking before it is made, and keeps the conversation across reloads
//! (the thread id is in the URL; the server keeps the thread in SQLite).
//!
//! The page (`examples/web_chat/static/`: plain HTML, CSS and JavaScript, no build step) speaks
//! the Vercel AI SDK's UI message stream protocol to `agentry::serve`, as a React app with
//! `useChat` would.
//!
//! Offline by default, against the SDK's built-in `MockServer` (typing at a readable speed);
//! against a real provider when `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`,
//! `OPENAI_BASE_URL` or `AGENTRY_MODEL=provider:model` is set.
//!
//! Run: `cargo run --example web_chat`, then open <http://127.0.0.1:3000>
//! (`WEB_CHAT_ADDR=127.0.0.1:8080` picks another address).

#[path = "../support/mod.rs"]
mod support;

mod app;

use std::path::Path;

const DEFAULT_ADDR: &str = "127.0.0.1:3000";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = support::backend(app::mock_model).await?;
    let label = match support::configured_model_spec() {
        Some(spec) => spec,
        None => "offline mock model".to_string(),
    };
    let db = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/web_chat/threads.db");
    let router = app::app(backend.model, &db, &label).await?;

    let addr = std::env::var("WEB_CHAT_ADDR").unwrap_or_else(|_| DEFAULT_ADDR.to_string());
    let listener = match tokio::net::TcpListener::bind(&addr).await {
        Ok(listener) => listener,
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            println!("{addr} is taken; using a free port instead");
            tokio::net::TcpListener::bind("127.0.0.1:0").await?
        }
        Err(e) => return Err(format!("cannot listen on {addr}: {e}").into()),
    };
    println!("threads are kept in {}", db.display());
    println!(
        "web chat on http://{} — open it in a browser (Ctrl-C stops)",
        listener.local_addr()?
    );
    axum::serve(listener, router).await?;
    // Keeps the mock model's server alive while the app serves.
    drop(backend.server);
    Ok(())
}
