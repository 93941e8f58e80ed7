//! Client-side tools, questions and denials, as the two protocols' own parsers read them.

use super::*;

/// The conversation with the client's tools: an external call the client runs, a tool's
/// question, and an email whose review rejects it.
fn client_model() -> ScriptedModel {
    ScriptedModel::new([
        Turn::tool_calls([ToolCall::new("l1", "locate", r#"{"precise":true}"#)]),
        Turn::text(json!({"topic": "Paris", "count": 1}).to_string()),
        Turn::tool_calls([ToolCall::new("d1", "delete_file", r#"{"file":"a.txt"}"#)]),
        Turn::text(json!({"topic": "a.txt", "count": 0}).to_string()),
        Turn::tool_calls([ToolCall::new(
            "e1",
            "send_email",
            r#"{"to":"bob@example.com"}"#,
        )]),
        Turn::text(json!({"topic": "email", "count": 0}).to_string()),
    ])
}

/// The client-tools conversation's AI SDK streams: each pause, then its resume (which goes
/// on with the same message, as `useChat` does).
pub(super) async fn ai_sdk_client_streams() -> Vec<Value> {
    let (url, _dir) = serve_model(client_model()).await;
    let run = format!("{url}/threads/c/runs/ai-sdk");
    let assistant = |part: Value| json!({"id": "c", "messages": [{"id": "a", "role": "assistant", "parts": [part]}]});
    let located = assistant(json!({
        "type": "tool-locate", "toolCallId": "l1", "state": "output-available",
        "input": {"precise": true}, "output": {"lat": 48.85, "lon": 2.35},
    }));
    let answered = json!({"decisions": {"d1": {"decision": "answer", "answer": true}}});
    let rejected = assistant(json!({
        "type": "tool-send_email", "toolCallId": "e1", "state": "approval-responded",
        "input": {"to": "bob@example.com"}, "approval": {"id": "e1", "approved": false},
    }));
    let mut streams = Vec::new();
    for (ask, answer) in [
        (user("Where am I?"), located),
        (user("Delete a.txt"), answered),
        (user("Email Bob"), rejected),
    ] {
        streams.push(json!({"sse": post(&run, ask).await, "continues": false}));
        streams.push(json!({"sse": post(&run, answer).await, "continues": true}));
    }
    streams
}

/// The client-tools conversation's AG-UI runs: the external call's result as a `tool`
/// message, the question's answer and the rejection as `resume` entries.
pub(super) async fn ag_ui_client_streams() -> Vec<Value> {
    let (url, _dir) = serve_model(client_model()).await;
    let run = format!("{url}/threads/g/runs/ag-ui");
    let mut located = run_input("r2", "Where am I?");
    located["messages"] = json!([
        {"id": "u", "role": "user", "content": "Where am I?"},
        {"id": "a", "role": "assistant", "toolCalls": [{"id": "l1", "type": "function",
            "function": {"name": "locate", "arguments": "{\"precise\":true}"}}]},
        {"id": "t", "role": "tool", "toolCallId": "l1", "content": "{\"lat\":48.85,\"lon\":2.35}"},
    ]);
    let mut answered = run_input("r4", "Delete a.txt");
    answered["resume"] =
        json!([{"interruptId": "d1", "status": "resolved", "payload": {"answer": true}}]);
    let mut rejected = run_input("r6", "Email Bob");
    rejected["resume"] = json!([{"interruptId": "e1", "status": "cancelled"}]);
    let mut streams = Vec::new();
    for body in [
        run_input("r1", "Where am I?"),
        located,
        run_input("r3", "Delete a.txt"),
        answered,
        run_input("r5", "Email Bob"),
        rejected,
    ] {
        streams.push(json!({"sse": post(&run, body).await, "continues": false}));
    }
    streams
}

fn part<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["toolCallId"] == id)
        .unwrap_or_else(|| panic!("no part of {id}: {report}"))
}

#[tokio::test]
async fn client_tools_questions_and_denials_parse_with_the_ai_package() {
    let streams = ai_sdk_client_streams().await;
    let reports = check("ai-sdk", &streams).unwrap_or_else(|problems| panic!("{problems}"));
    let reports = reports.as_array().unwrap();
    assert_eq!(reports.len(), 6);
    // The external call waits for the client, then holds its output.
    assert_eq!(part(&reports[0], "l1")["state"], "input-available");
    assert_eq!(part(&reports[1], "l1")["state"], "output-available");
    // The question is a data part of the message.
    assert!(
        types(&reports[2]).contains(&"data-question"),
        "{}",
        reports[2]
    );
    assert!(
        reports[2]["parts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["type"] == "data-question"),
        "{}",
        reports[2]
    );
    assert_eq!(part(&reports[3], "d1")["state"], "output-available");
    // The rejected call is denied.
    assert_eq!(part(&reports[4], "e1")["state"], "approval-requested");
    assert!(types(&reports[5]).contains(&"tool-output-denied"));
    assert_eq!(part(&reports[5], "e1")["state"], "output-denied");
}

#[tokio::test]
async fn client_tools_and_questions_parse_with_ag_ui_core() {
    let streams = ag_ui_client_streams().await;
    let reports = check("ag-ui", &streams).unwrap_or_else(|problems| panic!("{problems}"));
    let reports = reports.as_array().unwrap();
    assert_eq!(reports.len(), 6);
    assert_eq!(
        reports[0]["last"]["outcome"],
        json!({"type": "success", "pendingToolCallIds": ["l1"]})
    );
    assert!(types(&reports[1]).contains(&"TOOL_CALL_RESULT"));
    let question = &reports[2]["last"]["outcome"]["interrupts"][0];
    assert_eq!(question["reason"], agentry::serve::TOOL_QUESTION);
    assert_eq!(question["metadata"]["question"], "Delete a.txt?");
    for report in [&reports[1], &reports[3], &reports[5]] {
        assert_eq!(report["last"]["outcome"]["type"], "success", "{report}");
    }
}
