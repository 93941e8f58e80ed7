//! `agentry::serve`: runs streamed over HTTP as the AI SDK UI message stream and as AG-UI
//! events, approvals round trip, history after a reload, and a client that goes away.

mod serve_support;

use std::time::Duration;

use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::{Value, json};
use serve_support::*;

fn searches() -> Turn {
    Turn::tool_calls([
        ToolCall::new("s1", "search", r#"{"query":"invoices"}"#),
        ToolCall::new("s2", "search", r#"{"query":"receipts"}"#),
    ])
    .with_reasoning("Two searches at once.")
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

#[tokio::test]
async fn an_ai_sdk_run_streams_reasoning_parallel_tools_events_text_output_and_state() {
    let served = serve(ScriptedModel::new([
        searches(),
        Turn::text("Found 6 documents."),
    ]))
    .await;
    let response = served
        .post("/threads/t1/runs/ai-sdk", "ada")
        .json(&chat("Find my papers"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["x-vercel-ai-ui-message-stream"], "v1");
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let events = sse_events(&response.text().await.unwrap());
    let types = types(&events);
    assert_eq!(types.first().map(String::as_str), Some("start"));
    assert_eq!(&types[types.len() - 2..], ["finish", "[DONE]"]);
    for kind in [
        "start-step",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
        "text-start",
        "text-end",
        "finish-step",
    ] {
        assert!(types.iter().any(|t| t == kind), "no {kind} in {types:?}");
    }
    let inputs = of_type(&events, "tool-input-available");
    assert_eq!(inputs.len(), 2);
    assert_eq!(inputs[0]["input"], json!({"query": "invoices"}));
    let outputs = of_type(&events, "tool-output-available");
    assert_eq!(outputs[1]["output"], "3 results for receipts");
    let custom = of_type(&events, "data-event");
    assert_eq!(custom.len(), 2);
    assert_eq!(custom[0]["data"]["data"]["progress"], "searching");
    let text: String = of_type(&events, "text-delta")
        .iter()
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Found 6 documents.");
    assert_eq!(
        of_type(&events, "data-output")[0]["data"],
        "Found 6 documents."
    );
    assert_eq!(of_type(&events, "data-state")[0]["data"]["searches"], 2);
    assert_eq!(of_type(&events, "finish")[0]["finishReason"], "stop");
    // Two model requests: two steps.
    assert_eq!(of_type(&events, "start-step").len(), 2);
    assert_eq!(of_type(&events, "finish-step").len(), 2);
}

#[tokio::test]
async fn an_ag_ui_run_streams_events_with_state_snapshot_and_delta() {
    let served = serve(ScriptedModel::new([
        searches(),
        Turn::text("Found 6 documents."),
    ]))
    .await;
    let response = served
        .post("/threads/t2/runs/ag-ui", "ada")
        .json(&run_input("t2", "r1", "Find my papers"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let events = sse_events(&response.text().await.unwrap());
    let types = types(&events);
    assert_eq!(types[0], "RUN_STARTED");
    assert_eq!(events[0]["threadId"], "t2");
    assert_eq!(events[0]["runId"], "r1");
    assert_eq!(types[1], "STATE_SNAPSHOT");
    assert_eq!(events[1]["snapshot"], json!({"searches": 0, "sent": []}));
    assert_eq!(types.last().unwrap(), "RUN_FINISHED");
    assert_eq!(events.last().unwrap()["result"], "Found 6 documents.");
    assert_eq!(events.last().unwrap()["outcome"]["type"], "success");
    let delta = of_type(&events, "STATE_DELTA");
    assert_eq!(delta.len(), 1);
    assert_eq!(
        delta[0]["delta"],
        json!([{"op": "replace", "path": "/searches", "value": 2}])
    );
    assert_eq!(of_type(&events, "TOOL_CALL_START").len(), 2);
    assert_eq!(of_type(&events, "TOOL_CALL_END").len(), 2);
    assert_eq!(of_type(&events, "TOOL_CALL_RESULT").len(), 2);
    assert!(!of_type(&events, "REASONING_MESSAGE_CONTENT").is_empty());
    let custom = of_type(&events, "CUSTOM");
    assert_eq!(custom[0]["name"], agentry::serve::TOOL_EVENT);
    let text: String = of_type(&events, "TEXT_MESSAGE_CONTENT")
        .iter()
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Found 6 documents.");
}

fn email() -> Turn {
    Turn::tool_calls([
        ToolCall::new("s1", "search", r#"{"query":"bob"}"#),
        ToolCall::new("e1", "send_email", r#"{"to":"bob@example.com"}"#),
    ])
}

#[tokio::test]
async fn an_ai_sdk_approval_pauses_the_thread_and_the_answer_resumes_it() {
    let served = serve(ScriptedModel::new([email(), Turn::text("Sent.")])).await;
    let body = served
        .post_text("/threads/mail/runs/ai-sdk", "ada", &chat("Email Bob"))
        .await;
    let events = sse_events(&body);
    let approval = of_type(&events, "tool-approval-request");
    assert_eq!(approval.len(), 1);
    assert_eq!(approval[0]["toolCallId"], "e1");
    assert_eq!(of_type(&events, "finish")[0]["finishReason"], "tool-calls");
    // Nothing ran, not even the unreviewed search of the same answer.
    assert!(of_type(&events, "tool-output-available").is_empty());
    let (status, thread) = served.get_json("/threads/mail", "ada").await;
    assert_eq!(status, 200);
    assert_eq!(thread["status"], "paused");
    assert_eq!(thread["pending"][0]["toolCallId"], "e1");
    assert_eq!(thread["pending"][0]["toolName"], "send_email");
    // A new message waits for the decision.
    let refused = served
        .post("/threads/mail/runs/ai-sdk", "ada")
        .json(&chat("Hello?"))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 409);
    assert_eq!(
        refused.json::<Value>().await.unwrap()["error"]["code"],
        "thread_paused"
    );
    // The history shows the call waiting for approval, as useChat would hold it.
    let (_, history) = served
        .get_json("/threads/mail/messages?protocol=ai-sdk", "ada")
        .await;
    let last = history.as_array().unwrap().last().unwrap().clone();
    let part = last["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["toolCallId"] == "e1")
        .unwrap()
        .clone();
    assert_eq!(part["state"], "approval-requested");
    // useChat's answer: the assistant message, its part approval-responded.
    let mut responded = part.clone();
    responded["state"] = json!("approval-responded");
    responded["approval"] = json!({"id": "e1", "approved": true});
    let answer = json!({"id": "mail", "trigger": "submit-message", "messages": [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Email Bob"}]},
        {"id": last["id"], "role": "assistant", "parts": [responded]},
    ]});
    let body = served
        .post_text("/threads/mail/runs/ai-sdk", "ada", &answer)
        .await;
    let events = sse_events(&body);
    let outputs = of_type(&events, "tool-output-available");
    let ids: Vec<&str> = outputs
        .iter()
        .map(|e| e["toolCallId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["s1", "e1"]);
    assert_eq!(outputs[1]["output"], "sent to bob@example.com");
    assert_eq!(
        of_type(&events, "data-state")[0]["data"]["sent"],
        json!(["ada -> bob@example.com"])
    );
    let (_, thread) = served.get_json("/threads/mail", "ada").await;
    assert_eq!(thread["status"], "idle");
    served.model.assert_complete();
}

#[tokio::test]
async fn an_ag_ui_interrupt_is_resumed_by_a_resume_entry() {
    let served = serve(ScriptedModel::new([email(), Turn::text("Not sent.")])).await;
    let body = served
        .post_text(
            "/threads/mail2/runs/ag-ui",
            "ada",
            &run_input("mail2", "r1", "Email Bob"),
        )
        .await;
    let events = sse_events(&body);
    let finished = events.last().unwrap();
    assert_eq!(finished["type"], "RUN_FINISHED");
    assert_eq!(finished["outcome"]["type"], "interrupt");
    let interrupt = &finished["outcome"]["interrupts"][0];
    assert_eq!(interrupt["id"], "e1");
    assert_eq!(interrupt["reason"], agentry::serve::TOOL_APPROVAL);
    assert_eq!(
        interrupt["metadata"]["allowed"],
        json!(["approve", "edit", "reject"])
    );
    let mut resume = run_input("mail2", "r2", "Email Bob");
    resume["resume"] = json!([{"interruptId": "e1", "status": "resolved", "payload": {"approved": false, "reason": "not now"}}]);
    let body = served
        .post_text("/threads/mail2/runs/ag-ui", "ada", &resume)
        .await;
    let events = sse_events(&body);
    let results = of_type(&events, "TOOL_CALL_RESULT");
    let rejected = results.iter().find(|e| e["toolCallId"] == "e1").unwrap();
    assert!(
        rejected["content"].as_str().unwrap().contains("not now"),
        "{rejected}"
    );
    assert_eq!(events.last().unwrap()["outcome"]["type"], "success");
    // The rejected email was not sent.
    let (_, thread) = served.get_json("/threads/mail2", "ada").await;
    assert_eq!(thread["state"]["sent"], json!([]));
}

#[tokio::test]
async fn history_and_the_thread_list_survive_a_reload() {
    let served = serve(ScriptedModel::new([
        Turn::text("Hello Ada."),
        searches(),
        Turn::text("Found them."),
    ]))
    .await;
    for text in ["Hi", "Find my papers"] {
        let response = served
            .post("/threads/keep/runs/ai-sdk", "ada")
            .json(&chat(text))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        response.text().await.unwrap();
    }
    // "Reload": a fresh client reads the history.
    let (status, history) = served
        .get_json("/threads/keep/messages?protocol=ai-sdk", "ada")
        .await;
    assert_eq!(status, 200);
    let history = history.as_array().unwrap();
    let roles: Vec<&str> = history
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
    assert_eq!(history[0]["parts"][0]["text"], "Hi");
    let parts = history[3]["parts"].as_array().unwrap();
    let tools: Vec<&Value> = parts
        .iter()
        .filter(|p| p["type"] == "tool-search")
        .collect();
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[0]["state"], "output-available");
    assert_eq!(tools[0]["output"], "3 results for invoices");
    assert_eq!(parts.last().unwrap()["text"], "Found them.");
    let (_, ag) = served
        .get_json("/threads/keep/messages?protocol=ag-ui", "ada")
        .await;
    let roles: Vec<&str> = ag
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "user",
            "assistant",
            "tool",
            "tool",
            "assistant"
        ]
    );
    // The thread list: the user's own threads only.
    let created = served.post("/threads", "ada").send().await.unwrap();
    assert_eq!(created.status(), 201);
    let new_id = created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, list) = served.get_json("/threads", "ada").await;
    let ids: Vec<&str> = list["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [new_id.as_str(), "keep"]);
    let (_, other) = served.get_json("/threads", "bob").await;
    assert_eq!(other["threads"], json!([]));
}

#[tokio::test]
async fn a_client_that_goes_away_cancels_the_run_and_keeps_what_was_saved() {
    let served = serve(ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("s1", "search", r#"{"query":"x"}"#),
            ToolCall::new("w1", "wait", "{}"),
        ]),
        Turn::text("After the cancelled run."),
    ]))
    .await;
    let mut response = served
        .post("/threads/gone/runs/ai-sdk", "ada")
        .json(&chat("Wait for it"))
        .send()
        .await
        .unwrap();
    // Read until the run is inside the slow tool: its call is out and the answer is saved.
    read_until(&mut response, |e| {
        e["type"] == "tool-input-available" && e["toolCallId"] == "w1"
    })
    .await;
    for _ in 0..200 {
        let (_, t) = served.get_json("/threads/gone", "ada").await;
        if t["messages"].as_array().unwrap().len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(served.server.running(), 1);
    drop(response);
    // The server notices, drops the run, and records the cancellation.
    let mut thread = Value::Null;
    for _ in 0..200 {
        let (_, t) = served.get_json("/threads/gone", "ada").await;
        thread = t;
        if thread["cancelled"] == true && thread["status"] == "idle" && served.server.running() == 0
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(thread["status"], "idle", "{thread}");
    assert_eq!(thread["cancelled"], true);
    let messages = thread["messages"].as_array().unwrap();
    // Nothing saved is lost: the input, the answer; every call answered.
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(messages[1]["role"], "assistant");
    let results: Vec<(&str, bool)> = messages[2..]
        .iter()
        .map(|m| (m["call_id"].as_str().unwrap(), m["is_error"] == true))
        .collect();
    assert_eq!(results.len(), 2, "{messages:?}");
    assert!(results.contains(&("w1", true)));
    let cancelled = messages.iter().find(|m| m["call_id"] == "w1").unwrap();
    assert_eq!(cancelled["content"][0]["text"], agentry::agent::CANCELLED);
    // The thread takes the next message.
    let body = served
        .post_text("/threads/gone/runs/ai-sdk", "ada", &chat("Again"))
        .await;
    assert!(body.contains("After the cancelled run."), "{body}");
    let (_, thread) = served.get_json("/threads/gone", "ada").await;
    assert_eq!(thread["cancelled"], false);
}
