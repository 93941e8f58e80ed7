//! A pause is checked, not trusted: it holds each call once, the agent's policy (not the
//! pause) says which calls need a decision, and only the agent's tools run.

mod pause_support;

use agentry::agent::{Pause, ResumeError, RunErrorKind};
use agentry::middleware::{Decision, DecisionKind::*, HumanInTheLoop};
use agentry::prelude::ToolCall;
use agentry::testing::{ScriptedModel, Turn};
use pause_support::*;
use serde_json::json;

fn resume_error(err: &agentry::agent::RunError) -> &ResumeError {
    match err.kind() {
        RunErrorKind::Resume(e) => e,
        other => panic!("expected a resume error, got {other:?}"),
    }
}

fn approve() -> [(String, Decision); 1] {
    [("e1".to_string(), Decision::Approve)]
}

#[tokio::test]
async fn the_answer_is_stored_without_its_calls_and_each_call_once() {
    let json = paused_json().await;
    assert_eq!(json["format_version"], 3);
    assert!(
        json["answer"]["response"]["message"]
            .get("tool_calls")
            .is_none_or(|c| c.as_array().is_some_and(Vec::is_empty)),
        "{json}"
    );
    let e1 = &json["calls"][1];
    assert_eq!(e1["call"]["id"], "e1");
    // The review holds what only it knows; the call and tool are the call's.
    assert_eq!(
        e1["review"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["allowed", "description"]
    );
    assert!(e1.get("arguments").is_none());
    let pause: Pause<Outbox> = serde_json::from_value(json).unwrap();
    assert_eq!(pause.calls[1].arguments()["to"], "bob@example.com");
    let review = pause.calls[1].review.as_ref().unwrap();
    assert_eq!(
        (review.call_id.as_str(), review.tool.as_str()),
        ("e1", "send_email")
    );
}

#[tokio::test]
async fn a_second_copy_of_the_calls_in_the_answer_is_refused() {
    let mut json = paused_json().await;
    let mut mallory = json["calls"][1]["call"].clone();
    mallory["arguments"] = json!({"to": "mallory@example.com", "body": "hello"})
        .to_string()
        .into();
    json["answer"]["response"]["message"]["tool_calls"] =
        json!([json["calls"][0]["call"], mallory]);
    let err = serde_json::from_value::<Pause<Outbox>>(json).unwrap_err();
    assert!(err.to_string().contains("`calls` only"), "{err}");
}

#[tokio::test]
async fn calls_put_in_the_answer_of_a_pause_built_by_hand_do_not_run() {
    // A pause's fields are public: one made in code (not read from JSON, which refuses it)
    // may list calls in its answer as well. Only `calls` run, the reviewed one once.
    let mut pause = pause_of(&agent(model())).await;
    let mallory = ToolCall::new(
        "m1",
        "send_email",
        json!({"to": "mallory@example.com", "body": "hello"}).to_string(),
    );
    pause.answer.response.message.tool_calls = vec![mallory, pause.calls[1].call.clone()];
    let mailer = mailer();
    agent(rest())
        .resume(pause, approve(), std::sync::Arc::clone(&mailer))
        .await
        .unwrap();
    assert_eq!(mailer.recipients(), ["bob@example.com"]);
}

#[tokio::test]
async fn what_the_reviewer_sees_in_calls_is_what_runs() {
    let mut json = paused_json().await;
    // The pause was edited where the reviewer reads it.
    json["calls"][1]["call"]["arguments"] = json!({"to": "carol@example.com", "body": "hi"})
        .to_string()
        .into();
    let pause: Pause<Outbox> = serde_json::from_value(json).unwrap();
    let shown = pause.calls[1].arguments()["to"].clone();
    let mailer = mailer();
    agent(rest())
        .resume(pause, approve(), std::sync::Arc::clone(&mailer))
        .await
        .unwrap();
    assert_eq!(mailer.recipients(), [shown.as_str().unwrap()]);
}

#[tokio::test]
async fn a_review_removed_from_the_pause_still_needs_its_decision() {
    let mut json = paused_json().await;
    json["calls"][1]["review"] = serde_json::Value::Null;
    let pause: Pause<Outbox> = serde_json::from_value(json).unwrap();
    assert_eq!(pause.reviews().count(), 0);
    let mailer = mailer();
    let err = agent(rest())
        .resume(
            pause,
            Vec::<(String, Decision)>::new(),
            std::sync::Arc::clone(&mailer),
        )
        .await
        .unwrap_err();
    assert_eq!(
        resume_error(&err),
        &ResumeError::MissingDecision {
            call_id: "e1".to_string(),
            tool: "send_email".to_string()
        }
    );
    assert_eq!(mailer.sent(), 0);
}

#[tokio::test]
async fn decisions_the_pause_allows_but_the_agent_does_not_are_refused() {
    let strict = || builder(rest(), Approve | Reject).build();
    let mut json =
        serde_json::to_value(pause_of(&builder(model(), Approve | Reject).build()).await).unwrap();
    json["calls"][1]["review"]["allowed"] = json!(["approve", "edit", "reject", "respond"]);
    let pause: Pause<Outbox> = serde_json::from_value(json).unwrap();
    let edit = Decision::Edit {
        arguments: json!({"to": "mallory@example.com", "body": "hi"}),
    };
    let mailer = mailer();
    let err = strict()
        .resume(
            pause,
            [("e1".to_string(), edit)],
            std::sync::Arc::clone(&mailer),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(resume_error(&err), ResumeError::NotAllowed { decision: Edit, allowed, .. } if *allowed == (Approve | Reject)),
        "{err}"
    );
    assert_eq!(mailer.sent(), 0);
}

#[tokio::test]
async fn a_decision_on_a_call_to_a_tool_the_agent_lacks_is_refused_whatever_it_is() {
    // The policy reviews a tool the agent does not have, and the model calls it.
    let reviewing_a_stranger = |model: ScriptedModel| {
        Assistant::builder(model)
            .middleware(HumanInTheLoop::new().review("wire_money", Approve | Reject))
            .build()
    };
    let paused_model = || {
        ScriptedModel::new([Turn::tool_calls([ToolCall::new(
            "w1",
            "wire_money",
            r#"{"to":"mallory"}"#,
        )])])
    };
    for decision in [
        Decision::Approve,
        Decision::Reject {
            message: "no".to_string(),
        },
    ] {
        let pause = reviewing_a_stranger(paused_model())
            .run_or_pause("Pay", Mailer::default())
            .await
            .unwrap()
            .paused()
            .unwrap();
        let err = reviewing_a_stranger(rest())
            .resume(pause, [("w1".to_string(), decision)], Mailer::default())
            .await
            .unwrap_err();
        assert_eq!(
            resume_error(&err),
            &ResumeError::UnknownTool {
                call_id: "w1".to_string(),
                tool: "wire_money".to_string()
            }
        );
    }
}

#[tokio::test]
async fn a_reviewed_call_renamed_in_the_pause_to_a_missing_tool_is_refused() {
    let mut json = paused_json().await;
    json["calls"][1]["call"]["name"] = "wire_money".into();
    let pause: Pause<Outbox> = serde_json::from_value(json).unwrap();
    let err = agent(rest())
        .resume(pause, approve(), Mailer::default())
        .await
        .unwrap_err();
    assert!(
        matches!(resume_error(&err), ResumeError::UnknownTool { tool, .. } if tool == "wire_money"),
        "{err}"
    );
}
