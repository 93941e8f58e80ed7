//! Sealed pauses: an agent with a pause key seals each pause, and resumes only a pause whose
//! seal matches; the key never shows.

mod pause_support;

use std::sync::Arc;

use agentry::agent::{Pause, PauseKey, ResumeError, RunErrorKind};
use agentry::middleware::{Decision, DecisionKind::*};
use pause_support::*;
use serde_json::json;

const SECRET: &[u8; 32] = b"k3y-for-tests-only-32-bytes-long";

fn key() -> PauseKey {
    PauseKey::new(*SECRET)
}

fn sealed_agent(model: impl agentry::agent::IntoSharedModel) -> Mail {
    builder(model, Approve | Edit | Reject | Respond)
        .pause_key(key())
        .build()
}

async fn sealed_json() -> serde_json::Value {
    serde_json::to_value(pause_of(&sealed_agent(model())).await).unwrap()
}

fn approve() -> [(String, Decision); 1] {
    [("e1".to_string(), Decision::Approve)]
}

async fn resume_err(json: serde_json::Value, agent: Mail) -> ResumeError {
    let pause: Pause<Outbox> = serde_json::from_value(json).unwrap();
    let mailer = mailer();
    let err = agent
        .resume(pause, approve(), Arc::clone(&mailer))
        .await
        .unwrap_err();
    assert_eq!(mailer.sent(), 0, "nothing runs");
    match err.kind() {
        RunErrorKind::Resume(e) => e.clone(),
        other => panic!("expected a resume error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_sealed_pause_resumes_after_its_json_was_reindented_and_reordered() {
    let json = sealed_json().await;
    let seal = json["seal"].as_str().unwrap();
    assert_eq!(seal.len(), 64, "{seal}");
    // Through a browser: pretty-printed, keys reversed.
    fn reverse(v: serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(m) => {
                let mut entries: Vec<_> = m.into_iter().collect();
                entries.reverse();
                let mut out = serde_json::Map::new();
                for (k, v) in entries {
                    out.insert(k, reverse(v));
                }
                serde_json::Value::Object(out)
            }
            serde_json::Value::Array(a) => a.into_iter().map(reverse).collect(),
            other => other,
        }
    }
    let text = serde_json::to_string_pretty(&reverse(json)).unwrap();
    let pause: Pause<Outbox> = serde_json::from_str(&text).unwrap();
    let mailer = mailer();
    let run = sealed_agent(rest())
        .resume(pause, approve(), Arc::clone(&mailer))
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.output, "All done.");
    assert_eq!(mailer.recipients(), ["bob@example.com"]);
}

#[tokio::test]
async fn a_sealed_pause_changed_anywhere_is_refused() {
    let edits: [fn(&mut serde_json::Value); 5] = [
        |j| {
            j["calls"][1]["call"]["arguments"] =
                json!({"to": "mallory@example.com", "body": "hello"})
                    .to_string()
                    .into()
        },
        |j| j["calls"][1]["review"]["description"] = "Send a newsletter".into(),
        |j| j["snapshot"]["state"]["searches"] = 7.into(),
        |j| j["snapshot"]["messages"][1]["content"][0]["text"] = "Email mallory".into(),
        |j| j["answer"]["turn"] = 2.into(),
    ];
    for edit in edits {
        let mut json = sealed_json().await;
        edit(&mut json);
        assert_eq!(
            resume_err(json, sealed_agent(rest())).await,
            ResumeError::BadSeal
        );
    }
}

#[tokio::test]
async fn a_pause_without_a_seal_or_with_a_garbled_one_is_refused() {
    let mut json = sealed_json().await;
    json["seal"] = serde_json::Value::Null;
    assert_eq!(
        resume_err(json, sealed_agent(rest())).await,
        ResumeError::Unsealed
    );
    // A pause from an agent without a key has no seal either.
    let unsealed = paused_json().await;
    assert_eq!(
        resume_err(unsealed, sealed_agent(rest())).await,
        ResumeError::Unsealed
    );
    let mut json = sealed_json().await;
    json["seal"] = "not hex".into();
    assert_eq!(
        resume_err(json, sealed_agent(rest())).await,
        ResumeError::BadSeal
    );
}

#[tokio::test]
async fn a_pause_sealed_with_another_key_is_refused() {
    let json = sealed_json().await;
    let other = builder(rest(), Approve | Edit | Reject | Respond)
        .pause_key(PauseKey::new(b"another key, also 32 bytes long!".to_vec()))
        .build();
    assert_eq!(resume_err(json, other).await, ResumeError::BadSeal);
}

#[tokio::test]
async fn the_key_shows_in_no_debug_output() {
    let secret = std::str::from_utf8(SECRET).unwrap();
    let agent = sealed_agent(model());
    let pause = pause_of(&agent).await;
    for text in [
        format!("{:?}", key()),
        format!("{agent:?}"),
        format!("{pause:?}"),
    ] {
        assert!(!text.contains(secret), "{text}");
        assert!(!text.contains("k3y"), "{text}");
    }
}

/// A state whose serialization fails.
#[derive(Debug, Default)]
struct Opaque;

impl serde::Serialize for Opaque {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("opaque on purpose"))
    }
}

#[tokio::test]
async fn a_pause_whose_state_does_not_serialize_cannot_be_sealed_and_says_so() {
    use agentry::ToolDefinition;
    use agentry::agent::{AgentBuilder, FnTool, NoTools};
    use agentry::middleware::HumanInTheLoop;
    use agentry::testing::{ScriptedModel, Turn};

    let tool = FnTool::new(
        ToolDefinition::new(
            "act",
            "Act.",
            json!({"type": "object", "properties": {}}),
            false,
        ),
        |_: serde_json::Value, _: &agentry::ToolRuntime<(), Opaque>| async {
            Ok(agentry::ToolOutput::text("done"))
        },
    );
    let model = ScriptedModel::new([Turn::tool_call("act", json!({}))]);
    let agent = AgentBuilder::<_, _, (), Opaque>::new(model, NoTools)
        .dyn_tool(tool)
        .middleware(HumanInTheLoop::new().review("act", Approve))
        .pause_key(key())
        .build();
    let err = agent.run_or_pause("Act", ()).await.unwrap_err();
    match err.kind() {
        RunErrorKind::Unsealable { reason, source } => {
            assert!(reason.contains("opaque on purpose"));
            // serde's error itself, not only its text.
            assert!(
                source.to_string().contains("opaque on purpose"),
                "{source:?}"
            );
            let cause = std::error::Error::source(err.kind()).expect("a source");
            assert!(cause.downcast_ref::<serde_json::Error>().is_some());
        }
        other => panic!("expected Unsealable, got {other:?}"),
    }
}
