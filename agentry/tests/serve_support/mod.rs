//! A served agent for the `serve_*` tests: tools that search (writing a custom event), send
//! email (reviewed), wait (to be cancelled), locate (external: the client runs it) and
//! delete a file (asks the user), a typed state, a bearer-token auth, a SQLite
//! checkpointer in a temporary directory, and a real TCP server.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use agentry::agent::Agent;
use agentry::middleware::{DecisionKind::*, HumanInTheLoop};
use agentry::output::TextOutput;
use agentry::persist::SqliteCheckpointer;
use agentry::prelude::*;
use agentry::serve::{Caller, RequestHead, ServeError, Server};
use agentry::testing::ScriptedModel;
use serde_json::Value;

mod sse;
#[allow(unused_imports)]
pub use sse::{read_until, sse_events};

/// The user a request is for.
#[derive(Debug)]
pub struct User {
    pub name: String,
}

/// What the tools did.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notes {
    pub searches: u32,
    pub sent: Vec<String>,
}

/// Search the archive.
///
/// # Arguments
/// * `query` - What to look for.
#[tool]
pub fn search(query: String, notes: State<Notes>, writer: StreamWriter) -> String {
    notes.update(|n| n.searches += 1);
    writer.write(serde_json::json!({ "progress": "searching", "query": query }));
    format!("3 results for {query}")
}

/// Send an email.
///
/// # Arguments
/// * `to` - The recipient.
#[tool]
pub fn send_email(to: String, user: Context<User>, notes: State<Notes>) -> String {
    let line = format!("{} -> {to}", user.name);
    notes.update(move |n| n.sent.push(line));
    format!("sent to {to}")
}

/// Wait for a long time.
#[tool]
pub async fn wait() -> String {
    tokio::time::sleep(Duration::from_secs(60)).await;
    "waited".to_string()
}

/// A place on Earth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Location {
    pub lat: f64,
    pub lon: f64,
}

/// The user's location, from their browser (the client runs it).
///
/// # Arguments
/// * `precise` - Street-level rather than city-level.
#[tool(external)]
pub fn locate(precise: bool) -> Location;

/// What deleting a file asks the user.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConfirmDelete {
    pub file: String,
}

/// Delete a file, once the user confirms.
///
/// # Arguments
/// * `file` - The file.
#[tool]
pub async fn delete_file(file: String, ask: Interrupt<ConfirmDelete, bool>) -> String {
    if ask.ask(ConfirmDelete { file: file.clone() }).await {
        format!("deleted {file}")
    } else {
        format!("kept {file}")
    }
}

/// You help with email.
#[agent(tools(search, send_email, wait, locate, delete_file), context = User, state = Notes)]
pub struct Helper;

/// A running server and what the tests look at.
pub struct Served {
    pub url: String,
    pub model: Arc<ScriptedModel>,
    pub server: Server<Helper, TextOutput, User, Notes>,
    pub client: reqwest::Client,
    _dir: tempfile::TempDir,
}

pub async fn auth(head: RequestHead) -> Result<Caller<User>, ServeError> {
    match head.bearer() {
        Some(token) => Ok(Caller::new(
            token,
            User {
                name: token.to_owned(),
            },
        )),
        None => Err(ServeError::Unauthorized("no bearer token".into())),
    }
}

/// Serves the helper agent answering with `model` on a free local port.
pub async fn serve(model: ScriptedModel) -> Served {
    serve_with(model, |s| s.keep_alive(Duration::from_millis(20))).await
}

pub async fn serve_with(
    model: ScriptedModel,
    configure: impl FnOnce(
        Server<Helper, TextOutput, User, Notes>,
    ) -> Server<Helper, TextOutput, User, Notes>,
) -> Served {
    let dir = tempfile::tempdir().unwrap();
    let checkpointer = SqliteCheckpointer::open(dir.path().join("threads.db"))
        .await
        .unwrap();
    let model = Arc::new(model);
    let agent: Agent<Helper, TextOutput, User, Notes> = Helper::builder(Arc::clone(&model))
        .checkpointer(checkpointer)
        .middleware(HumanInTheLoop::new().review_tool::<send_email>(Approve | Reject | Edit))
        .build();
    let server = configure(Server::new(agent, auth).unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let app = server.router();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Served {
        url,
        model,
        server,
        client: reqwest::Client::new(),
        _dir: dir,
    }
}

impl Served {
    pub fn post(&self, path: &str, token: &str) -> reqwest::RequestBuilder {
        self.client
            .post(format!("{}{path}", self.url))
            .bearer_auth(token)
    }

    pub fn get(&self, path: &str, token: &str) -> reqwest::RequestBuilder {
        self.client
            .get(format!("{}{path}", self.url))
            .bearer_auth(token)
    }

    /// POST `body` as JSON and read the whole answer (a run's stream) as text.
    pub async fn post_text(&self, path: &str, token: &str, body: &impl serde::Serialize) -> String {
        let response = self.post(path, token).json(body).send().await.unwrap();
        response.text().await.unwrap()
    }

    /// GET a JSON answer, with its status.
    pub async fn get_json(&self, path: &str, token: &str) -> (u16, Value) {
        let response = self.get(path, token).send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }
}

/// The `type` of each event.
pub fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| match e {
            Value::String(s) => s.clone(),
            e => e["type"].as_str().unwrap_or("?").to_owned(),
        })
        .collect()
}

/// An AI SDK chat request with one user message.
pub fn chat(text: &str) -> Value {
    serde_json::json!({
        "id": "chat",
        "trigger": "submit-message",
        "messages": [{ "id": "u1", "role": "user", "parts": [{ "type": "text", "text": text }] }],
    })
}

/// An AG-UI `RunAgentInput` with one user message.
pub fn run_input(thread: &str, run: &str, text: &str) -> Value {
    serde_json::json!({
        "threadId": thread,
        "runId": run,
        "messages": [{ "id": "u1", "role": "user", "content": text }],
        "state": null,
        "tools": [],
        "context": [],
        "forwardedProps": {},
    })
}
