//! `agentry::serve::TeamServer`: a `Team` served on a thread over both protocols — text, a
//! handoff (`data-handoff` / `CUSTOM agentry.handoff`), the next message answered by the
//! agent that answered last — checked with the protocols' own code (the Node checker of
//! `serve_conformance`); another user's team thread refused; a member's reviewed tool
//! pausing the team, approved (AI SDK) or rejected (AG-UI) by a later request.

#[allow(dead_code)]
#[path = "serve_support/node_env.rs"]
mod node_env;
#[allow(dead_code)]
#[path = "serve_support/sse.rs"]
mod sse;

use std::sync::Arc;

use agentry::middleware::{DecisionKind::*, HumanInTheLoop};
use agentry::multi::Team;
use agentry::persist::SqliteCheckpointer;
use agentry::prelude::*;
use agentry::serve::{Caller, HANDOFF, RequestHead, ServeError, TeamServer};
use agentry::testing::{ScriptedModel, Turn};
use serde_json::{Value, json};
use sse::{read_until, sse_events};

/// Send an email.
///
/// # Arguments
/// * `to` - The recipient.
#[tool]
fn send_email(to: String) -> String {
    format!("sent to {to}")
}

/// You route requests.
#[agent(tools())]
struct Triage;

/// Wait for a long time.
#[tool]
async fn wait() -> String {
    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
    "waited".to_string()
}

/// You answer billing questions and send email.
#[agent(tools(send_email, wait))]
struct Billing;

struct Served {
    url: String,
    server: TeamServer<String, ()>,
    _dir: tempfile::TempDir,
}

/// Serves triage → billing, with scripted answers: triage hands the first message on, and
/// billing answers it and (only if the thread keeps billing) the next one. A reviewed
/// `send_email` when `reviewed`.
async fn serve(billing: ScriptedModel, reviewed: bool) -> Served {
    let dir = tempfile::tempdir().unwrap();
    let checkpointer = SqliteCheckpointer::open(dir.path().join("t.db"))
        .await
        .unwrap();
    let triage = ScriptedModel::new([
        Turn::tool_call("transfer_to_billing", json!({})).with_text("Passing you to billing.")
    ]);
    let mut billing = Billing::builder(Arc::new(billing));
    if reviewed {
        billing =
            billing.middleware(HumanInTheLoop::new().review_tool::<send_email>(Approve | Reject));
    }
    let team = Team::<String, ()>::builder()
        .agent(
            "triage",
            "Routes requests.",
            Triage::builder(Arc::new(triage)),
        )
        .agent("billing", "Answers billing questions.", billing)
        .handoff("triage", "billing")
        .checkpointer(checkpointer)
        .build()
        .unwrap();
    let auth = |head: RequestHead| async move {
        match head.bearer() {
            Some(user) => Ok(Caller::new(user, ())),
            None => Err(ServeError::Unauthorized("no token".into())),
        }
    };
    let server = TeamServer::new(team, auth).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let app = server.router();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Served {
        url,
        server,
        _dir: dir,
    }
}

fn billing() -> ScriptedModel {
    ScriptedModel::new([Turn::text("Refunded."), Turn::text("You're welcome.")])
}

async fn post(url: &str, user: &str, body: Value) -> (u16, String) {
    let response = reqwest::Client::new()
        .post(url)
        .bearer_auth(user)
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

async fn get(url: &str, user: &str) -> (u16, Value) {
    let response = reqwest::Client::new()
        .get(url)
        .bearer_auth(user)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

fn chat(text: &str) -> Value {
    json!({"id": "c", "trigger": "submit-message", "messages": [
        {"id": "u", "role": "user", "parts": [{"type": "text", "text": text}]}
    ]})
}

fn run_input(thread: &str, run: &str, text: &str) -> Value {
    json!({"threadId": thread, "runId": run, "state": {}, "tools": [], "context": [], "forwardedProps": {},
           "messages": [{"id": "u", "role": "user", "content": text}]})
}

fn text_of(events: &[Value], kind: &str) -> String {
    events
        .iter()
        .filter(|e| e["type"] == kind)
        .filter_map(|e| e["delta"].as_str())
        .collect()
}

/// Checks `streams` (each an SSE body, and whether it continues a paused run).
fn check(protocol: &str, streams: &[(&str, bool)]) -> Value {
    let streams: Vec<Value> = streams
        .iter()
        .map(|(sse, continues)| json!({"sse": sse, "continues": continues}))
        .collect();
    node_env::check(&json!({"protocol": protocol, "streams": streams}))
        .unwrap_or_else(|problems| panic!("{problems}"))
}

#[tokio::test]
async fn a_team_streams_a_handoff_as_the_ai_sdk_and_keeps_the_answering_agent() {
    let served = serve(billing(), false).await;
    let run = format!("{}/threads/c/runs/ai-sdk", served.url);
    let (status, first) = post(&run, "ada", chat("I was charged twice.")).await;
    assert_eq!(status, 200, "{first}");
    let (status, second) = post(&run, "ada", chat("Thanks!")).await;
    assert_eq!(status, 200, "{second}");

    let first_events = sse_events(&first);
    let handoffs: Vec<&Value> = first_events
        .iter()
        .filter(|e| e["type"] == "data-handoff")
        .collect();
    assert_eq!(handoffs.len(), 1, "{first}");
    assert_eq!(
        handoffs[0]["data"],
        json!({"from": "triage", "to": "billing"})
    );
    assert_eq!(
        text_of(&first_events, "text-delta"),
        "Passing you to billing.Refunded."
    );
    let output = first_events
        .iter()
        .find(|e| e["type"] == "data-output")
        .unwrap();
    assert_eq!(output["data"], "Refunded.");
    let second_events = sse_events(&second);
    // Billing answers the next message itself: triage's model has no turn left.
    assert_eq!(text_of(&second_events, "text-delta"), "You're welcome.");
    assert!(!second.contains("data-handoff"), "{second}");

    let reports = check("ai-sdk", &[(&first, false), (&second, false)]);
    let parts = reports[0]["parts"].as_array().unwrap();
    assert!(
        parts.iter().any(|p| p["type"] == "data-handoff"),
        "{parts:?}"
    );

    let (status, thread) = get(&format!("{}/threads/c", served.url), "ada").await;
    assert_eq!(status, 200);
    assert_eq!(thread["state"], json!({"agent": "billing"}));
    assert_eq!(thread["status"], "idle");
    let messages = thread["messages"].as_array().unwrap();
    // user, triage's transfer and its result, billing's answer; user, billing's answer.
    assert_eq!(messages.len(), 6, "{messages:?}");
    let (status, history) = get(
        &format!("{}/threads/c/messages?protocol=ai-sdk", served.url),
        "ada",
    )
    .await;
    assert_eq!(status, 200);
    assert!(history.to_string().contains("You're welcome."), "{history}");
}

#[tokio::test]
async fn a_team_streams_a_handoff_as_ag_ui_and_keeps_the_answering_agent() {
    let served = serve(billing(), false).await;
    let run = format!("{}/threads/g/runs/ag-ui", served.url);
    let (status, first) = post(&run, "ada", run_input("g", "r1", "I was charged twice.")).await;
    assert_eq!(status, 200, "{first}");
    let (status, second) = post(&run, "ada", run_input("g", "r2", "Thanks!")).await;
    assert_eq!(status, 200, "{second}");

    let first_events = sse_events(&first);
    let handoff = first_events
        .iter()
        .find(|e| e["type"] == "CUSTOM" && e["name"] == HANDOFF)
        .unwrap_or_else(|| panic!("no handoff: {first}"));
    assert_eq!(handoff["value"], json!({"from": "triage", "to": "billing"}));
    assert_eq!(first_events[1]["type"], "STATE_SNAPSHOT");
    assert_eq!(first_events[1]["snapshot"], json!({"agent": "triage"}));
    assert_eq!(
        text_of(&first_events, "TEXT_MESSAGE_CONTENT"),
        "Passing you to billing.Refunded."
    );
    let second_events = sse_events(&second);
    assert_eq!(second_events[1]["snapshot"], json!({"agent": "billing"}));
    assert_eq!(
        text_of(&second_events, "TEXT_MESSAGE_CONTENT"),
        "You're welcome."
    );

    let reports = check("ag-ui", &[(&first, false), (&second, false)]);
    for report in reports.as_array().unwrap() {
        assert_eq!(report["last"]["type"], "RUN_FINISHED", "{report}");
    }
    assert_eq!(reports[0]["last"]["result"], "Refunded.");
    assert_eq!(reports[1]["last"]["result"], "You're welcome.");
}

#[tokio::test]
async fn another_users_team_thread_is_refused() {
    let served = serve(billing(), false).await;
    let run = format!("{}/threads/c/runs/ai-sdk", served.url);
    let (status, _) = post(&run, "ada", chat("I was charged twice.")).await;
    assert_eq!(status, 200);
    let (status, body) = post(&run, "bob", chat("Show me Ada's invoice.")).await;
    assert_eq!(status, 403, "{body}");
    let (status, _) = get(&format!("{}/threads/c", served.url), "bob").await;
    assert_eq!(status, 403);
    let (status, _) = get(&format!("{}/threads/c/messages", served.url), "bob").await;
    assert_eq!(status, 403);
    let (status, listed) = get(&format!("{}/threads", served.url), "bob").await;
    assert_eq!((status, listed), (200, json!({"threads": []})));
}

/// The part of call `call_id` in thread `thread`'s AI SDK history.
async fn history_part(served: &Served, thread: &str, call_id: &str) -> Value {
    let url = format!("{}/threads/{thread}/messages?protocol=ai-sdk", served.url);
    let (_, history) = get(&url, "ada").await;
    history
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap())
        .find(|p| p["toolCallId"] == call_id)
        .cloned()
        .unwrap_or_else(|| panic!("call {call_id} is not in the history: {history}"))
}

fn reviewed() -> ScriptedModel {
    ScriptedModel::new([
        Turn::tool_call("send_email", json!({"to": "bob@example.com"})),
        Turn::text("Sent."),
    ])
}

#[tokio::test]
async fn a_members_reviewed_tool_pauses_the_team_and_an_ai_sdk_approval_resumes_it() {
    let served = serve(reviewed(), true).await;
    let run = format!("{}/threads/c/runs/ai-sdk", served.url);
    let (status, first) = post(&run, "ada", chat("Email Bob the invoice.")).await;
    assert_eq!(status, 200, "{first}");
    let first_events = sse_events(&first);
    let approval = first_events
        .iter()
        .find(|e| e["type"] == "tool-approval-request")
        .unwrap_or_else(|| panic!("no approval request: {first}"));
    let call_id = approval["toolCallId"].as_str().unwrap().to_owned();
    assert!(!first.contains("tool-output-available"), "{first}");
    let (_, thread) = get(&format!("{}/threads/c", served.url), "ada").await;
    assert_eq!(thread["status"], "paused", "{thread}");
    assert_eq!(thread["pending"][0]["toolName"], "send_email");
    assert_eq!(thread["state"], json!({"agent": "billing"}));
    // The history shows the call waiting for approval, as useChat would hold it after a reload.
    let waiting = history_part(&served, "c", &call_id).await;
    assert_eq!(waiting["state"], "approval-requested", "{waiting}");
    // A new message waits for the decision.
    let (status, body) = post(&run, "ada", chat("Hello?")).await;
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("thread_paused"), "{body}");

    let approve = json!({"id": "c", "messages": [{"id": "a", "role": "assistant", "parts": [{
        "type": "tool-send_email", "toolCallId": call_id, "state": "approval-responded",
        "input": {"to": "bob@example.com"}, "approval": {"id": call_id, "approved": true},
    }]}]});
    let (status, second) = post(&run, "ada", approve.clone()).await;
    assert_eq!(status, 200, "{second}");
    let second_events = sse_events(&second);
    let output = second_events
        .iter()
        .find(|e| e["type"] == "tool-output-available")
        .unwrap_or_else(|| panic!("no tool output: {second}"));
    assert_eq!(output["output"], "sent to bob@example.com");
    assert_eq!(text_of(&second_events, "text-delta"), "Sent.");
    check("ai-sdk", &[(&first, false), (&second, true)]);
    let (_, thread) = get(&format!("{}/threads/c", served.url), "ada").await;
    assert_eq!(thread["status"], "idle", "{thread}");
    // The decision was used once: sending it again is refused.
    let (status, body) = post(&run, "ada", approve).await;
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("not_paused"), "{body}");
}

#[tokio::test]
async fn a_members_reviewed_tool_is_an_ag_ui_interrupt_and_a_resume_entry_rejects_it() {
    let served = serve(
        ScriptedModel::new([
            Turn::tool_call("send_email", json!({"to": "bob@example.com"})),
            Turn::text("Not sent."),
        ]),
        true,
    )
    .await;
    let run = format!("{}/threads/g/runs/ag-ui", served.url);
    let (status, first) = post(&run, "ada", run_input("g", "r1", "Email Bob.")).await;
    assert_eq!(status, 200, "{first}");
    let first_events = sse_events(&first);
    let finished = first_events.last().unwrap();
    assert_eq!(finished["type"], "RUN_FINISHED", "{first}");
    assert_eq!(finished["outcome"]["type"], "interrupt", "{first}");
    let interrupt = &finished["outcome"]["interrupts"][0];
    assert_eq!(interrupt["reason"], agentry::serve::TOOL_APPROVAL);
    let call_id = interrupt["id"].as_str().unwrap().to_owned();

    let mut resume = run_input("g", "r2", "Email Bob.");
    resume["resume"] = json!([{"interruptId": call_id, "status": "resolved",
        "payload": {"approved": false, "reason": "not now"}}]);
    let (status, second) = post(&run, "ada", resume).await;
    assert_eq!(status, 200, "{second}");
    let second_events = sse_events(&second);
    let rejected = second_events
        .iter()
        .find(|e| e["type"] == "TOOL_CALL_RESULT" && e["toolCallId"] == call_id.as_str())
        .unwrap_or_else(|| panic!("no result: {second}"));
    assert!(
        rejected["content"].as_str().unwrap().contains("not now"),
        "{rejected}"
    );
    assert!(!second.contains("sent to bob"), "{second}");
    assert_eq!(text_of(&second_events, "TEXT_MESSAGE_CONTENT"), "Not sent.");
    // The rejection is recorded: the AI SDK history shows the call denied.
    let part = history_part(&served, "g", &call_id).await;
    assert_eq!(part["state"], "output-denied", "{part}");
    let reports = check("ag-ui", &[(&first, false), (&second, true)]);
    assert_eq!(reports[1]["last"]["type"], "RUN_FINISHED", "{reports}");
    assert_eq!(reports[1]["last"]["result"], "Not sent.");
}

#[tokio::test]
async fn a_client_that_goes_away_cancels_the_team_run_and_the_thread_says_so() {
    let billing = ScriptedModel::new([Turn::tool_call("wait", json!({}))]);
    let served = serve(billing, false).await;
    let mut response = reqwest::Client::new()
        .post(format!("{}/threads/c/runs/ai-sdk", served.url))
        .bearer_auth("ada")
        .json(&chat("Wait for it."))
        .send()
        .await
        .unwrap();
    // Read until billing is inside the slow tool.
    read_until(&mut response, |e| {
        e["type"] == "tool-input-available" && e["toolName"] == "wait"
    })
    .await;
    assert_eq!(served.server.running(), 1);
    drop(response);
    let mut thread = Value::Null;
    for _ in 0..300 {
        let (_, t) = get(&format!("{}/threads/c", served.url), "ada").await;
        thread = t;
        if thread["cancelled"] == true && thread["status"] == "idle" && served.server.running() == 0
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(thread["cancelled"], true, "{thread}");
    assert_eq!(thread["status"], "idle", "{thread}");
    assert_eq!(served.server.running(), 0);
    // A team run is saved when it ends: nothing of the dropped run is in the thread.
    assert_eq!(thread["messages"], json!([]), "{thread}");
    assert_eq!(thread["state"], json!({"agent": "triage"}));
}
