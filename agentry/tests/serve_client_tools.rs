//! `agentry::serve` and the calls a run waits on besides review: external tools as the
//! protocols' client-side tools (the client runs them and sends the result back), a tool's
//! question (shown, answered in the next request), a result of the wrong shape, and a
//! rejected call streamed as `tool-output-denied`.

mod serve_support;

use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::{Value, json};
use serve_support::*;

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

fn locate_call() -> Turn {
    Turn::tool_calls([ToolCall::new("l1", "locate", r#"{"precise":false}"#)])
}

fn delete_call() -> Turn {
    Turn::tool_calls([ToolCall::new("d1", "delete_file", r#"{"file":"a.txt"}"#)])
}

async fn post_events(served: &Served, path: &str, body: &Value) -> Vec<Value> {
    let response = served.post(path, "ada").json(body).send().await.unwrap();
    assert_eq!(response.status(), 200, "{path}");
    sse_events(&response.text().await.unwrap())
}

/// The last assistant message of the thread's AI SDK history, and the part of call `id`.
async fn ai_sdk_last(served: &Served, thread: &str, id: &str) -> (Value, Value) {
    let (_, history) = served
        .get_json(
            &format!("/threads/{thread}/messages?protocol=ai-sdk"),
            "ada",
        )
        .await;
    let last = history.as_array().unwrap().last().unwrap().clone();
    let part = last["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["toolCallId"] == id)
        .unwrap_or_else(|| panic!("no part of {id} in {last}"))
        .clone();
    (last, part)
}

/// What `useChat` posts after `addToolResult`: the conversation, the assistant message's
/// tool part now holding the client's result.
fn with_tool_part(last: &Value, part: Value) -> Value {
    let mut parts: Vec<Value> = last["parts"].as_array().unwrap().clone();
    for p in &mut parts {
        if p["toolCallId"] == part["toolCallId"] {
            *p = part.clone();
        }
    }
    json!({"id": "chat", "trigger": "submit-message", "messages": [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Where am I?"}]},
        {"id": last["id"], "role": "assistant", "parts": parts},
    ]})
}

#[tokio::test]
async fn an_ai_sdk_external_call_is_a_client_side_tool_whose_result_resumes_the_run() {
    let served = serve(ScriptedModel::new([
        locate_call(),
        Turn::text("You are in Paris."),
    ]))
    .await;
    let events = post_events(&served, "/threads/loc/runs/ai-sdk", &chat("Where am I?")).await;
    let inputs = of_type(&events, "tool-input-available");
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0]["toolName"], "locate");
    assert_eq!(inputs[0]["input"], json!({"precise": false}));
    // The client runs it: no output, no approval request, no question.
    for kind in [
        "tool-output-available",
        "tool-output-error",
        "tool-approval-request",
        "data-question",
    ] {
        assert!(of_type(&events, kind).is_empty(), "{kind} in {events:?}");
    }
    assert_eq!(of_type(&events, "finish")[0]["finishReason"], "tool-calls");
    let (_, thread) = served.get_json("/threads/loc", "ada").await;
    assert_eq!(thread["status"], "paused");
    assert_eq!(thread["questions"][0]["toolCallId"], "l1");
    assert_eq!(thread["questions"][0]["external"], true);
    assert_eq!(thread["pending"], json!([]));
    // The history holds the call as the stream left it.
    let (last, part) = ai_sdk_last(&served, "loc", "l1").await;
    assert_eq!(part["state"], "input-available");
    assert_eq!(part["type"], "tool-locate");
    // addToolResult: the part in state output-available.
    let mut done = part.clone();
    done["state"] = json!("output-available");
    done["output"] = json!({"lat": 48.85, "lon": 2.35});
    let events = post_events(
        &served,
        "/threads/loc/runs/ai-sdk",
        &with_tool_part(&last, done),
    )
    .await;
    let outputs = of_type(&events, "tool-output-available");
    assert_eq!(outputs.len(), 1, "{events:?}");
    assert_eq!(outputs[0]["toolCallId"], "l1");
    assert!(
        outputs[0]["output"].as_str().unwrap().contains("48.85"),
        "{}",
        outputs[0]
    );
    // The client saw the call's input in the first stream: it is not sent again.
    assert!(of_type(&events, "tool-input-available").is_empty());
    assert_eq!(
        of_type(&events, "data-output")[0]["data"],
        "You are in Paris."
    );
    let (_, thread) = served.get_json("/threads/loc", "ada").await;
    assert_eq!(thread["status"], "idle");
    served.model.assert_complete();
}

#[tokio::test]
async fn a_result_of_the_wrong_shape_is_the_runs_error_and_the_call_still_waits() {
    let served = serve(ScriptedModel::new([
        locate_call(),
        Turn::text("You are in Paris."),
    ]))
    .await;
    post_events(&served, "/threads/bad/runs/ai-sdk", &chat("Where am I?")).await;
    let (last, part) = ai_sdk_last(&served, "bad", "l1").await;
    let mut wrong = part.clone();
    wrong["state"] = json!("output-available");
    wrong["output"] = json!("somewhere nice");
    let events = post_events(
        &served,
        "/threads/bad/runs/ai-sdk",
        &with_tool_part(&last, wrong),
    )
    .await;
    let errors = of_type(&events, "error");
    assert_eq!(errors.len(), 1, "{events:?}");
    let text = errors[0]["errorText"].as_str().unwrap();
    assert!(text.contains("l1") && text.contains("locate"), "{text}");
    assert_eq!(of_type(&events, "finish")[0]["finishReason"], "error");
    let (_, thread) = served.get_json("/threads/bad", "ada").await;
    assert_eq!(thread["status"], "paused");
    // AG-UI: a `tool` message whose content is not a Location.
    let mut input = run_input("bad", "r2", "Where am I?");
    input["messages"] = json!([
        {"id": "u1", "role": "user", "content": "Where am I?"},
        {"id": "a1", "role": "assistant", "toolCalls": [
            {"id": "l1", "type": "function", "function": {"name": "locate", "arguments": "{\"precise\":false}"}}
        ]},
        {"id": "t1", "role": "tool", "toolCallId": "l1", "content": "{\"lat\": \"north\"}"},
    ]);
    let events = post_events(&served, "/threads/bad/runs/ag-ui", &input).await;
    let last = events.last().unwrap();
    assert_eq!(last["type"], "RUN_ERROR", "{events:?}");
    assert!(last["message"].as_str().unwrap().contains("l1"), "{last}");
    // The right shape still goes on.
    input["messages"][2]["content"] = json!(r#"{"lat": 48.85, "lon": 2.35}"#);
    input["runId"] = json!("r3");
    let events = post_events(&served, "/threads/bad/runs/ag-ui", &input).await;
    assert_eq!(events.last().unwrap()["outcome"]["type"], "success");
    served.model.assert_complete();
}

#[tokio::test]
async fn an_ag_ui_external_call_is_a_frontend_tool_answered_by_a_tool_message() {
    let served = serve(ScriptedModel::new([
        locate_call(),
        Turn::text("You are in Paris."),
    ]))
    .await;
    let events = post_events(
        &served,
        "/threads/loc2/runs/ag-ui",
        &run_input("loc2", "r1", "Where am I?"),
    )
    .await;
    let start = of_type(&events, "TOOL_CALL_START");
    assert_eq!(start.len(), 1);
    assert_eq!(start[0]["toolCallName"], "locate");
    let args: String = of_type(&events, "TOOL_CALL_ARGS")
        .iter()
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(args, r#"{"precise":false}"#);
    assert_eq!(of_type(&events, "TOOL_CALL_END").len(), 1);
    assert!(of_type(&events, "TOOL_CALL_RESULT").is_empty());
    let finished = events.last().unwrap();
    assert_eq!(finished["type"], "RUN_FINISHED");
    assert_eq!(
        finished["outcome"],
        json!({"type": "success", "pendingToolCallIds": ["l1"]})
    );
    // History: the call waits, with no result.
    let (_, history) = served
        .get_json("/threads/loc2/messages?protocol=ag-ui", "ada")
        .await;
    let last = history.as_array().unwrap().last().unwrap();
    assert_eq!(last["role"], "assistant");
    assert_eq!(last["toolCalls"][0]["id"], "l1");
    // The client sends the conversation back with its tool message.
    let mut input = run_input("loc2", "r2", "Where am I?");
    let mut messages = history.as_array().unwrap().clone();
    messages.push(json!({"id": "t1", "role": "tool", "toolCallId": "l1",
        "content": r#"{"lat": 48.85, "lon": 2.35}"#}));
    input["messages"] = json!(messages);
    let events = post_events(&served, "/threads/loc2/runs/ag-ui", &input).await;
    let results = of_type(&events, "TOOL_CALL_RESULT");
    assert_eq!(results.len(), 1, "{events:?}");
    assert!(results[0]["content"].as_str().unwrap().contains("2.35"));
    // The call was announced in the first run: not started again.
    assert!(of_type(&events, "TOOL_CALL_START").is_empty());
    let finished = events.last().unwrap();
    assert_eq!(finished["outcome"]["type"], "success");
    assert_eq!(finished["result"], "You are in Paris.");
    served.model.assert_complete();
}

#[tokio::test]
async fn an_ai_sdk_question_is_a_data_part_answered_by_a_decision() {
    let served = serve(ScriptedModel::new([delete_call(), Turn::text("Deleted.")])).await;
    let events = post_events(&served, "/threads/q1/runs/ai-sdk", &chat("Delete a.txt")).await;
    let questions = of_type(&events, "data-question");
    assert_eq!(questions.len(), 1, "{events:?}");
    assert_eq!(
        questions[0]["data"],
        json!({"toolCallId": "d1", "tool": "delete_file", "question": {"file": "a.txt"}})
    );
    assert!(of_type(&events, "tool-output-available").is_empty());
    assert_eq!(of_type(&events, "finish")[0]["finishReason"], "tool-calls");
    let (_, thread) = served.get_json("/threads/q1", "ada").await;
    assert_eq!(thread["questions"][0]["question"], json!({"file": "a.txt"}));
    assert_eq!(thread["questions"][0]["external"], false);
    // History shows the question as the stream did.
    let (last, part) = ai_sdk_last(&served, "q1", "d1").await;
    assert_eq!(part["state"], "input-available");
    let shown: Vec<&Value> = last["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] == "data-question")
        .collect();
    assert_eq!(shown, [questions[0]]);
    let answer = json!({"decisions": {"d1": {"decision": "answer", "answer": true}}});
    let events = post_events(&served, "/threads/q1/runs/ai-sdk", &answer).await;
    let outputs = of_type(&events, "tool-output-available");
    assert_eq!(outputs[0]["toolCallId"], "d1");
    assert_eq!(outputs[0]["output"], "deleted a.txt");
    assert_eq!(of_type(&events, "finish")[0]["finishReason"], "stop");
    served.model.assert_complete();
}

#[tokio::test]
async fn an_ag_ui_question_is_an_interrupt_answered_by_a_resume_entry() {
    let served = serve(ScriptedModel::new([delete_call(), Turn::text("Kept it.")])).await;
    let events = post_events(
        &served,
        "/threads/q2/runs/ag-ui",
        &run_input("q2", "r1", "Delete a.txt"),
    )
    .await;
    let finished = events.last().unwrap();
    assert_eq!(finished["outcome"]["type"], "interrupt", "{finished}");
    let interrupt = &finished["outcome"]["interrupts"][0];
    assert_eq!(interrupt["id"], "d1");
    assert_eq!(interrupt["toolCallId"], "d1");
    assert_eq!(interrupt["reason"], agentry::serve::TOOL_QUESTION);
    assert_eq!(interrupt["metadata"]["question"], json!({"file": "a.txt"}));
    assert_eq!(interrupt["metadata"]["toolName"], "delete_file");
    let mut resume = run_input("q2", "r2", "Delete a.txt");
    resume["resume"] =
        json!([{"interruptId": "d1", "status": "resolved", "payload": {"answer": false}}]);
    let events = post_events(&served, "/threads/q2/runs/ag-ui", &resume).await;
    let results = of_type(&events, "TOOL_CALL_RESULT");
    assert_eq!(results[0]["content"], "kept a.txt");
    assert_eq!(events.last().unwrap()["outcome"]["type"], "success");
    served.model.assert_complete();
}

#[tokio::test]
async fn a_rejected_call_streams_tool_output_denied() {
    let served = serve(ScriptedModel::new([
        Turn::tool_calls([ToolCall::new(
            "e1",
            "send_email",
            r#"{"to":"bob@example.com"}"#,
        )]),
        Turn::text("Not sent."),
    ]))
    .await;
    post_events(&served, "/threads/deny/runs/ai-sdk", &chat("Email Bob")).await;
    let (last, part) = ai_sdk_last(&served, "deny", "e1").await;
    assert_eq!(part["state"], "approval-requested");
    let mut responded = part.clone();
    responded["state"] = json!("approval-responded");
    responded["approval"] = json!({"id": "e1", "approved": false, "reason": "not now"});
    let events = post_events(
        &served,
        "/threads/deny/runs/ai-sdk",
        &with_tool_part(&last, responded),
    )
    .await;
    let denied = of_type(&events, "tool-output-denied");
    assert_eq!(
        denied,
        [&json!({"type": "tool-output-denied", "toolCallId": "e1"})]
    );
    assert!(of_type(&events, "tool-output-available").is_empty());
    assert_eq!(of_type(&events, "data-state")[0]["data"]["sent"], json!([]));
    // After a reload, the history shows the call as the stream left it.
    let (_, part) = ai_sdk_last(&served, "deny", "e1").await;
    assert_eq!(part["state"], "output-denied", "{part}");
    assert_eq!(part["approval"]["approved"], false);
    served.model.assert_complete();
}

#[tokio::test]
async fn a_call_that_ran_beside_a_question_is_streamed_once() {
    let served = serve(ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("s1", "search", r#"{"query":"a.txt"}"#),
            ToolCall::new("d1", "delete_file", r#"{"file":"a.txt"}"#),
        ]),
        Turn::text("Deleted."),
    ]))
    .await;
    let events = post_events(
        &served,
        "/threads/q3/runs/ai-sdk",
        &chat("Find and delete a.txt"),
    )
    .await;
    let outputs = of_type(&events, "tool-output-available");
    assert_eq!(outputs.len(), 1, "{events:?}");
    assert_eq!(outputs[0]["toolCallId"], "s1");
    assert_eq!(of_type(&events, "data-question").len(), 1);
    // History: the search's result, the delete waiting at its question, each once.
    let (last, search) = ai_sdk_last(&served, "q3", "s1").await;
    assert_eq!(search["state"], "output-available");
    let parts = last["parts"].as_array().unwrap();
    assert_eq!(parts.iter().filter(|p| p["toolCallId"] == "d1").count(), 1);
    assert_eq!(
        parts
            .iter()
            .filter(|p| p["type"] == "data-question")
            .count(),
        1
    );
    // AG-UI history: the search's tool message, none yet for the delete.
    let (_, history) = served
        .get_json("/threads/q3/messages?protocol=ag-ui", "ada")
        .await;
    let answered: Vec<&Value> = history
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| &m["toolCallId"])
        .collect();
    assert_eq!(answered, [&json!("s1")], "{history}");
    let answer = json!({"decisions": {"d1": {"decision": "answer", "answer": true}}});
    let events = post_events(&served, "/threads/q3/runs/ai-sdk", &answer).await;
    let ids: Vec<&str> = of_type(&events, "tool-output-available")
        .iter()
        .map(|e| e["toolCallId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["d1"], "{events:?}");
    // The search ran once.
    assert_eq!(of_type(&events, "data-state")[0]["data"]["searches"], 1);
    served.model.assert_complete();
}

#[tokio::test]
async fn the_history_denies_only_the_rejected_result_when_call_ids_repeat() {
    let email = || {
        Turn::tool_calls([ToolCall::new(
            "e1",
            "send_email",
            r#"{"to":"bob@example.com"}"#,
        )])
    };
    let served = serve(ScriptedModel::new([
        email(),
        Turn::text("Sent."),
        email(),
        Turn::text("Not sent."),
    ]))
    .await;
    for approved in [true, false] {
        post_events(&served, "/threads/twice/runs/ai-sdk", &chat("Email Bob")).await;
        let (last, part) = ai_sdk_last(&served, "twice", "e1").await;
        let mut responded = part.clone();
        responded["state"] = json!("approval-responded");
        responded["approval"] = json!({"id": "e1", "approved": approved});
        post_events(
            &served,
            "/threads/twice/runs/ai-sdk",
            &with_tool_part(&last, responded),
        )
        .await;
    }
    let (_, history) = served
        .get_json("/threads/twice/messages?protocol=ai-sdk", "ada")
        .await;
    let states: Vec<&Value> = history
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["parts"].as_array().unwrap())
        .filter(|p| p["toolCallId"] == "e1")
        .map(|p| &p["state"])
        .collect();
    assert_eq!(
        states,
        [&json!("output-available"), &json!("output-denied")]
    );
    served.model.assert_complete();
}
