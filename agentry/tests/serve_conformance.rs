//! Conformance of `agentry::serve` against the protocols' own code: the server's output for a
//! conversation with text, reasoning, parallel tool calls, a tool's custom event, a typed
//! output, an approval and an error is fed to the official parsers — the `ai` package's
//! `uiMessageChunkSchema` and `readUIMessageStream`, and `@ag-ui/core`'s `EventSchemas` — at
//! the versions pinned in `tests/ui_protocols/package-lock.json`, with the order rules of
//! each protocol (`tests/ui_protocols/check.mjs`).
//!
//! The Node environment is made on first use under `target/ui-protocols` (`npm ci`); without
//! Node.js and npm (`apt-get install nodejs npm`) or the npm registry, these tests fail saying
//! so.

#[allow(dead_code)]
#[path = "serve_support/node_env.rs"]
mod node_env;

use std::sync::Arc;

use agentry::agent::Agent;
use agentry::middleware::{DecisionKind::*, HumanInTheLoop};
use agentry::model::ModelError;
use agentry::output::{OutputMode, StructuredSpec};
use agentry::persist::SqliteCheckpointer;
use agentry::prelude::*;
use agentry::serve::{Caller, RequestHead, ServeError, Server};
use agentry::testing::{ScriptedModel, Turn};
use serde_json::{Value, json};

#[path = "serve_conformance/client_tools.rs"]
mod client_tools;
use client_tools::{ag_ui_client_streams, ai_sdk_client_streams};

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct Notes {
    searches: u32,
    sent: Vec<String>,
}

/// What the search found.
#[derive(Debug, Serialize, Deserialize, JsonSchema, StructuredOutput)]
struct Findings {
    /// The topic.
    topic: String,
    /// How many documents.
    count: u32,
}

/// Search the archive.
///
/// # Arguments
/// * `query` - What to look for.
#[tool]
fn search(query: String, notes: State<Notes>, writer: StreamWriter) -> String {
    notes.update(|n| n.searches += 1);
    writer.write(json!({ "progress": "searching", "query": query }));
    format!("3 results for {query}")
}

/// Send an email.
///
/// # Arguments
/// * `to` - The recipient.
#[tool]
fn send_email(to: String, notes: State<Notes>) -> String {
    let line = to.clone();
    notes.update(move |n| n.sent.push(line));
    format!("sent to {to}")
}

/// A place on Earth.
#[derive(Debug, Serialize, Deserialize)]
struct Location {
    lat: f64,
    lon: f64,
}

/// The user's location, from their browser (the client runs it).
///
/// # Arguments
/// * `precise` - Street-level rather than city-level.
#[tool(external)]
fn locate(precise: bool) -> Location;

/// Delete a file, once the user confirms.
///
/// # Arguments
/// * `file` - The file.
#[tool]
async fn delete_file(file: String, ask: Interrupt<String, bool>) -> String {
    match ask.ask(format!("Delete {file}?")).await {
        true => format!("deleted {file}"),
        false => format!("kept {file}"),
    }
}

/// You search and send email.
#[agent(tools(search, send_email, locate, delete_file), state = Notes)]
struct Clerk;

type Spec = StructuredSpec<Findings>;

/// The conversation: a run with reasoning, text, two parallel searches (each writing a
/// custom event) and a typed output; a run that pauses for an email's approval; its resume,
/// which runs the calls and then fails on a model error.
fn model() -> ScriptedModel {
    ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("s1", "search", r#"{"query":"invoices"}"#),
            ToolCall::new("s2", "search", r#"{"query":"receipts"}"#),
        ])
        .with_reasoning("Two searches, at once.")
        .with_text("Let me look."),
        Turn::text(json!({"topic": "papers", "count": 6}).to_string()),
        Turn::tool_calls([
            ToolCall::new("s3", "search", r#"{"query":"bob"}"#),
            ToolCall::new("e1", "send_email", r#"{"to":"bob@example.com"}"#),
        ]),
        Turn::error(ModelError::InvalidRequest {
            message: "the model is gone".into(),
            param: None,
        }),
    ])
}

async fn serve() -> (String, tempfile::TempDir) {
    serve_model(model()).await
}

async fn serve_model(model: ScriptedModel) -> (String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let checkpointer = SqliteCheckpointer::open(dir.path().join("t.db"))
        .await
        .unwrap();
    let agent: Agent<Clerk, Spec, (), Notes> = Clerk::builder(Arc::new(model))
        .output(Spec::new(OutputMode::Native))
        .checkpointer(checkpointer)
        .middleware(HumanInTheLoop::new().review_tool::<send_email>(Approve | Reject))
        .build();
    let auth = |head: RequestHead| async move {
        match head.bearer() {
            Some(user) => Ok(Caller::new(user, ())),
            None => Err(ServeError::Unauthorized("no token".into())),
        }
    };
    let server = Server::new(agent, auth).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let app = server.router();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, dir)
}

async fn post(url: &str, body: Value) -> String {
    let response = reqwest::Client::new()
        .post(url)
        .bearer_auth("ada")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

fn user(text: &str) -> Value {
    json!({"id": "c", "trigger": "submit-message", "messages": [
        {"id": "u", "role": "user", "parts": [{"type": "text", "text": text}]}
    ]})
}

/// The conversation's three AI SDK streams.
async fn ai_sdk_streams() -> Vec<Value> {
    let (url, _dir) = serve().await;
    let run = format!("{url}/threads/c/runs/ai-sdk");
    let first = post(&run, user("Find my papers")).await;
    let second = post(&run, user("Email Bob")).await;
    let approve = json!({"id": "c", "messages": [
        {"id": "a", "role": "assistant", "parts": [{
            "type": "tool-send_email", "toolCallId": "e1", "state": "approval-responded",
            "input": {"to": "bob@example.com"}, "approval": {"id": "e1", "approved": true},
        }]}
    ]});
    let third = post(&run, approve).await;
    vec![
        json!({"sse": first, "continues": false}),
        json!({"sse": second, "continues": false}),
        json!({"sse": third, "continues": true}),
    ]
}

fn run_input(run: &str, text: &str) -> Value {
    json!({"threadId": "g", "runId": run, "state": {}, "tools": [], "context": [], "forwardedProps": {},
           "messages": [{"id": "u", "role": "user", "content": text}]})
}

async fn ag_ui_streams() -> Vec<Value> {
    let (url, _dir) = serve().await;
    let run = format!("{url}/threads/g/runs/ag-ui");
    let first = post(&run, run_input("r1", "Find my papers")).await;
    let second = post(&run, run_input("r2", "Email Bob")).await;
    let mut resume = run_input("r3", "Email Bob");
    resume["resume"] =
        json!([{"interruptId": "e1", "status": "resolved", "payload": {"approved": true}}]);
    let third = post(&run, resume).await;
    [first, second, third]
        .into_iter()
        .map(|sse| json!({"sse": sse, "continues": false}))
        .collect()
}

fn check(protocol: &str, streams: &[Value]) -> Result<Value, String> {
    node_env::check(&json!({"protocol": protocol, "streams": streams}))
}

fn types(report: &Value) -> Vec<&str> {
    report["types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn the_ai_sdk_stream_parses_with_the_ai_package() {
    let streams = ai_sdk_streams().await;
    let reports = check("ai-sdk", &streams).unwrap_or_else(|problems| panic!("{problems}"));
    let [first, second, third] = &reports.as_array().unwrap()[..] else {
        panic!("{reports}")
    };
    // Everything the conversation was meant to show, as the AI SDK read it.
    let first_types = types(first);
    for kind in [
        "reasoning-delta",
        "text-delta",
        "tool-input-start",
        "tool-input-delta",
        "tool-output-available",
        "data-event",
        "data-output",
        "data-state",
    ] {
        assert!(first_types.contains(&kind), "no {kind}: {first_types:?}");
    }
    let parts = first["parts"].as_array().unwrap();
    let searches: Vec<&Value> = parts
        .iter()
        .filter(|p| p["type"] == "tool-search")
        .collect();
    assert_eq!(searches.len(), 2, "{parts:?}");
    assert!(searches.iter().all(|p| p["state"] == "output-available"));
    assert!(parts.iter().any(|p| p["type"] == "reasoning"));
    assert!(parts.iter().any(|p| p["type"] == "data-output"));
    let email = second["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["toolCallId"] == "e1")
        .unwrap();
    assert_eq!(email["state"], "approval-requested");
    // The resumed stream goes on with the same message: the approved call's output, then
    // the model's error.
    assert!(types(third).contains(&"error"), "{third}");
    assert_eq!(
        third["errors"],
        json!(["model request failed: invalid request: the model is gone"])
    );
    let email = third["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["toolCallId"] == "e1")
        .unwrap();
    assert_eq!(email["state"], "output-available");
}

#[tokio::test]
async fn the_ag_ui_events_parse_with_ag_ui_core() {
    let streams = ag_ui_streams().await;
    let reports = check("ag-ui", &streams).unwrap_or_else(|problems| panic!("{problems}"));
    let [first, second, third] = &reports.as_array().unwrap()[..] else {
        panic!("{reports}")
    };
    let first_types = types(first);
    for kind in [
        "RUN_STARTED",
        "STATE_SNAPSHOT",
        "REASONING_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_RESULT",
        "CUSTOM",
        "STATE_DELTA",
        "RUN_FINISHED",
    ] {
        assert!(first_types.contains(&kind), "no {kind}: {first_types:?}");
    }
    assert_eq!(
        first["last"]["result"],
        json!({"topic": "papers", "count": 6})
    );
    assert_eq!(second["last"]["outcome"]["type"], "interrupt");
    assert_eq!(
        second["last"]["outcome"]["interrupts"][0]["toolCallId"],
        "e1"
    );
    assert_eq!(third["last"]["type"], "RUN_ERROR");
    assert!(types(third).contains(&"TOOL_CALL_RESULT"));
}

/// The checker itself must be able to fail: a chunk the AI SDK does not know, a delta of a
/// part never started, an AG-UI event missing a field, an argument of a call never started,
/// a pending frontend call never sent, a question of an unknown call.
#[tokio::test]
async fn the_checker_refuses_invalid_and_out_of_order_output() {
    let streams = ai_sdk_streams().await;
    let broken = |from: &str, to: &str| -> Vec<Value> {
        let mut streams = streams.clone();
        let sse = streams[0]["sse"].as_str().unwrap().replacen(from, to, 1);
        streams[0]["sse"] = json!(sse);
        streams
    };
    // An invalid chunk: a text delta without its part's id.
    let problems = check("ai-sdk", &broken(r#""id":"text-"#, r#""di":"text-"#)).unwrap_err();
    assert!(problems.contains("is not a UI message chunk"), "{problems}");
    // Out of order: the text part never starts.
    let problems = check(
        "ai-sdk",
        &broken(r#""type":"text-start""#, r#""type":"data-x""#),
    )
    .unwrap_err();
    assert!(problems.contains("is not open"), "{problems}");
    let streams = ag_ui_streams().await;
    let broken = |from: &str, to: &str| -> Vec<Value> {
        let mut streams = streams.clone();
        let sse = streams[0]["sse"].as_str().unwrap().replacen(from, to, 1);
        streams[0]["sse"] = json!(sse);
        streams
    };
    let problems = check("ag-ui", &broken(r#""toolCallName""#, r#""toolName""#)).unwrap_err();
    assert!(problems.contains("is not an AG-UI event"), "{problems}");
    // A frontend call the run never sent.
    let mut client = ag_ui_client_streams().await;
    let sse = client[0]["sse"].as_str().unwrap().replacen(
        r#""pendingToolCallIds":["l1"]"#,
        r#""pendingToolCallIds":["l9"]"#,
        1,
    );
    client[0]["sse"] = json!(sse);
    let problems = check("ag-ui", &client).unwrap_err();
    assert!(problems.contains("pending call l9"), "{problems}");
    // A question of a call whose input was never sent.
    let mut client = ai_sdk_client_streams().await;
    let sse: Vec<String> = client[2]["sse"]
        .as_str()
        .unwrap()
        .split("\n\n")
        .map(|frame| match frame.strip_prefix("data: ") {
            Some(data) if data.contains("data-question") => {
                let mut chunk: Value = serde_json::from_str(data).unwrap();
                chunk["data"]["toolCallId"] = json!("x9");
                format!("data: {chunk}")
            }
            _ => frame.to_owned(),
        })
        .collect();
    client[2]["sse"] = json!(sse.join("\n\n"));
    let problems = check("ai-sdk", &client).unwrap_err();
    assert!(
        problems.contains("a question of unknown call x9"),
        "{problems}"
    );
    let problems = check(
        "ag-ui",
        &broken(
            r#""type":"TOOL_CALL_START""#,
            r#""type":"STEP_FINISHED","stepName":"x""#,
        ),
    )
    .unwrap_err();
    assert!(
        problems.contains("is not open") || problems.contains("finishes x"),
        "{problems}"
    );
}
