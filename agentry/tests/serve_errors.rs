//! `agentry::serve` refuses bad requests with the right status and a JSON error: 400, 401,
//! 403 (another user's thread), 404, 409 (a run going on; a review pending; no review),
//! 413.

mod serve_support;

use std::time::Duration;

use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::{Value, json};
use serve_support::*;

async fn error_of(response: reqwest::Response) -> (u16, String) {
    let status = response.status().as_u16();
    assert_eq!(response.headers()["content-type"], "application/json");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["status"], status);
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty())
    );
    (status, body["error"]["code"].as_str().unwrap().to_owned())
}

#[tokio::test]
async fn malformed_and_foreign_bodies_are_400() {
    let served = serve(ScriptedModel::new([])).await;
    let cases: [(&str, &[u8]); 6] = [
        ("/threads/a/runs/ai-sdk", b"{not json"),
        ("/threads/a/runs/ai-sdk", b"[1, 2]"),
        ("/threads/a/runs/ai-sdk", br#"{"messages": []}"#),
        ("/threads/a/runs/ag-ui", br#"{"threadId": "a"}"#),
        ("/threads/a/runs/ag-ui", br#"{"threadId": "b", "runId": "r", "messages": [{"id": "1", "role": "user", "content": "hi"}]}"#),
        ("/threads/a/runs?protocol=smoke-signals", br#"{"message": "hi"}"#),
    ];
    for (path, body) in cases {
        let response = served
            .post(path, "ada")
            .header("content-type", "application/json")
            .body(body.to_vec())
            .send()
            .await
            .unwrap();
        assert_eq!(
            error_of(response).await,
            (400, "bad_request".into()),
            "{path} {}",
            String::from_utf8_lossy(body)
        );
    }
    // A bad thread id.
    let response = served
        .post("/threads/a%20b/runs/ai-sdk", "ada")
        .json(&chat("hi"))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(response).await.0, 400);
    // Nothing was created by the refused requests.
    let (status, _) = served.get_json("/threads/a", "ada").await;
    assert_eq!(status, 404);
    assert_eq!(served.model.request_count(), 0);
}

#[tokio::test]
async fn a_request_without_credentials_is_401() {
    let served = serve(ScriptedModel::new([])).await;
    let response = served
        .client
        .post(format!("{}/threads/a/runs/ai-sdk", served.url))
        .json(&chat("hi"))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(response).await, (401, "unauthorized".into()));
    let response = served
        .client
        .get(format!("{}/threads", served.url))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(response).await.0, 401);
}

#[tokio::test]
async fn a_body_over_the_cap_is_413() {
    let served = serve_with(ScriptedModel::new([]), |s| s.body_limit(1024)).await;
    let big = chat(&"x".repeat(2048));
    let response = served
        .post("/threads/a/runs/ai-sdk", "ada")
        .json(&big)
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(response).await, (413, "payload_too_large".into()));
    // Without a length up front (chunked), too.
    let chunks = futures::stream::iter(
        (0..8).map(|_| Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b' '; 256]))),
    );
    let response = served
        .post("/threads/a/runs/ai-sdk", "ada")
        .body(reqwest::Body::wrap_stream(chunks))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(response).await, (413, "payload_too_large".into()));
}

#[tokio::test]
async fn an_unknown_thread_is_404() {
    let served = serve(ScriptedModel::new([])).await;
    for path in ["/threads/nope", "/threads/nope/messages?protocol=ag-ui"] {
        let response = served.get(path, "ada").send().await.unwrap();
        assert_eq!(
            error_of(response).await,
            (404, "not_found".into()),
            "{path}"
        );
    }
    // Decisions for a thread that does not exist.
    let response = served
        .post("/threads/nope/runs/ai-sdk", "ada")
        .json(&json!({"decisions": {"c1": {"decision": "approve"}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(response).await, (404, "not_found".into()));
}

#[tokio::test]
async fn another_users_thread_is_403() {
    let served = serve(ScriptedModel::new([Turn::text("Hello Ada.")])).await;
    let body = served
        .post_text("/threads/ada-1/runs/ai-sdk", "ada", &chat("Hi"))
        .await;
    assert!(body.contains("Hello Ada."));
    let requests = [
        served.get("/threads/ada-1", "bob"),
        served.get("/threads/ada-1/messages", "bob"),
        served
            .post("/threads/ada-1/runs/ai-sdk", "bob")
            .json(&chat("Hi, I am Bob")),
        served
            .post("/threads/ada-1/runs/ag-ui", "bob")
            .json(&run_input("ada-1", "r", "Hi")),
    ];
    for request in requests {
        let response = request.send().await.unwrap();
        assert_eq!(error_of(response).await, (403, "forbidden".into()));
    }
    // Bob's attempts changed nothing; Ada still reads her thread.
    let (status, thread) = served.get_json("/threads/ada-1", "ada").await;
    assert_eq!(status, 200);
    assert_eq!(thread["messages"].as_array().unwrap().len(), 2);
    assert_eq!(served.model.request_count(), 1);
}

#[tokio::test]
async fn a_second_run_on_a_running_thread_is_409() {
    let served = serve(
        ScriptedModel::new([Turn::text("Slow answer.").with_usage(Default::default())])
            .with_delay(Duration::from_millis(400)),
    )
    .await;
    let first = served
        .post("/threads/busy/runs/ai-sdk", "ada")
        .json(&chat("First"))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), 200);
    let second = served
        .post("/threads/busy/runs/ag-ui", "ada")
        .json(&run_input("busy", "r2", "Second"))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(second).await, (409, "thread_running".into()));
    assert!(first.text().await.unwrap().contains("Slow answer."));
    // Decisions on a thread that is not paused.
    let response = served
        .post("/threads/busy/runs/ai-sdk", "ada")
        .json(&json!({"decisions": {"c1": {"decision": "approve"}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(response).await, (409, "not_paused".into()));
}

#[tokio::test]
async fn a_message_on_a_paused_thread_is_409() {
    let served = serve(ScriptedModel::new([Turn::tool_calls([ToolCall::new(
        "e1",
        "send_email",
        r#"{"to":"bob@example.com"}"#,
    )])]))
    .await;
    let body = served
        .post_text("/threads/p/runs/ai-sdk", "ada", &chat("Email Bob"))
        .await;
    assert!(body.contains("tool-approval-request"));
    let response = served
        .post("/threads/p/runs/ai-sdk", "ada")
        .json(&chat("Hello?"))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(response).await, (409, "thread_paused".into()));
    // A bad decision is 400 and leaves the pause as it was.
    let response = served
        .post("/threads/p/runs/ai-sdk", "ada")
        .json(&json!({"decisions": {"e1": {"decision": "launch"}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(response).await.0, 400);
    let (_, thread) = served.get_json("/threads/p", "ada").await;
    assert_eq!(thread["status"], "paused");
}

#[tokio::test]
async fn a_thread_made_outside_the_server_is_refused_unless_adopted() {
    let served = serve(ScriptedModel::new([Turn::text("Made by a program.")])).await;
    let user = User {
        name: "batch".into(),
    };
    let thread = served.server.agent().thread("made-outside");
    thread.run("Summarize the day.", user).await.unwrap();
    let response = served
        .post("/threads/made-outside/runs/ai-sdk", "mallory")
        .json(&chat("What did the program say?"))
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(response).await, (409, "unowned_thread".into()));
    // Nobody got it.
    let response = served
        .get("/threads/made-outside", "mallory")
        .send()
        .await
        .unwrap();
    assert_eq!(error_of(response).await, (404, "not_found".into()));

    let served = serve_with(
        ScriptedModel::new([Turn::text("a"), Turn::text("b")]),
        |s| s.adopt_unowned(true),
    )
    .await;
    let thread = served.server.agent().thread("made-outside");
    let user = User {
        name: "batch".into(),
    };
    thread.run("Summarize the day.", user).await.unwrap();
    let response = served
        .post("/threads/made-outside/runs/ai-sdk", "ada")
        .json(&chat("And then?"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let _ = response.text().await.unwrap();
    let (status, _) = served.get_json("/threads/made-outside", "ada").await;
    assert_eq!(status, 200);
}
