//! A pause written in format 1 (committed as a fixture, as the code before format 2 wrote it)
//! is read as format 2, resumed, and resumed from inside a thread's checkpoint; a format-2
//! pause (a fixture, as the code before format 3 wrote it) reads and resumes as it is.

mod pause_support;

use std::sync::Arc;

use agentry::agent::{PAUSE_FORMAT_VERSION, Pause};
use agentry::middleware::Decision;
use agentry::persist::{CheckpointWrite, Checkpointer, InMemoryCheckpointer};
use pause_support::*;
use serde_json::{Value, json};

const V1: &str = include_str!("fixtures/pause_v1.json");
const V2: &str = include_str!("fixtures/pause_v2.json");

fn v1() -> Value {
    serde_json::from_str(V1).unwrap()
}

fn approve() -> [(String, Decision); 1] {
    [("e1".to_string(), Decision::Approve)]
}

#[test]
fn a_format_1_pause_reads_as_the_current_format() {
    assert_eq!(
        PAUSE_FORMAT_VERSION, 3,
        "add a fixture for the previous version when bumping"
    );
    assert_eq!(v1()["format_version"], 1);
    let pause: Pause<Outbox> = serde_json::from_str(V1).unwrap();
    assert_eq!(
        pause.format_version, 2,
        "upgraded to format 2, which reads as it is"
    );
    assert_eq!((pause.id.as_deref(), pause.seal.as_deref()), (None, None));
    assert!(pause.answer.response.message.tool_calls.is_empty());
    let ids: Vec<&str> = pause.calls.iter().map(|c| c.call.id.as_str()).collect();
    assert_eq!(ids, ["s1", "e1", "s2"]);
    let reviews: Vec<_> = pause.reviews().collect();
    assert_eq!(reviews.len(), 1);
    assert_eq!(
        (reviews[0].call_id.as_str(), reviews[0].tool.as_str()),
        ("e1", "send_email")
    );
    assert_eq!(pause.calls[1].arguments()["to"], "bob@example.com");
    // Written again, it is format 2.
    let again = serde_json::to_value(&pause).unwrap();
    assert_eq!(again["format_version"], 2);
    assert!(again["calls"][1].get("arguments").is_none());
}

#[tokio::test]
async fn a_format_1_pause_resumes() {
    let pause: Pause<Outbox> = serde_json::from_str(V1).unwrap();
    let mailer = mailer();
    let run = agent(rest())
        .resume(pause, approve(), Arc::clone(&mailer))
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.output, "All done.");
    assert_eq!(mailer.recipients(), ["bob@example.com"]);
    assert_eq!(run.state.searches, 2);
    assert_eq!(run.usage.requests, 2, "the paused answer's usage counts");
}

#[test]
fn a_format_1_pause_whose_copies_disagree_is_refused() {
    let edits: [fn(&mut Value); 3] = [
        // The run would have sent to mallory while the reviewer read bob.
        |j| {
            j["answer"]["response"]["message"]["tool_calls"][1]["arguments"] =
                json!({"to": "mallory@example.com", "body": "hello"})
                    .to_string()
                    .into()
        },
        |j| j["calls"][1]["arguments"]["to"] = "carol@example.com".into(),
        |j| j["calls"][1]["review"]["tool"] = "search".into(),
    ];
    for edit in edits {
        let mut json = v1();
        edit(&mut json);
        let err = serde_json::from_value::<Pause<Outbox>>(json).unwrap_err();
        assert!(err.to_string().contains("disagrees"), "{err}");
    }
}

#[tokio::test]
async fn a_format_1_pause_inside_a_checkpoint_resumes_in_its_thread() {
    // A paused thread as the code before format 2 saved it: the messages in the thread
    // (without the system message), the pause without them in `pending`.
    let mut pending = v1();
    let messages: Vec<agentry::Message> =
        serde_json::from_value(pending["snapshot"]["messages"].take()).unwrap();
    pending["snapshot"]["messages"] = json!([]);
    let counters = json!({
        "status": "paused",
        "machine": pending["snapshot"]["counters"],
        "run_start": 0,
    });
    let state = pending["snapshot"]["state"].clone();
    let cp = Arc::new(InMemoryCheckpointer::default());
    cp.put(
        CheckpointWrite::first("old", &messages[1..], &state)
            .counters(&counters)
            .pending(&pending),
    )
    .await
    .unwrap();

    let agent = builder(rest(), agentry::middleware::Allowed::ALL)
        .shared_checkpointer(Arc::clone(&cp) as Arc<dyn Checkpointer>)
        .build();
    let pause = agent.thread("old").pending().await.unwrap().unwrap();
    assert_eq!(pause.format_version, 2);
    assert_eq!(pause.calls.len(), 3);
    let mailer = mailer();
    let run = agent
        .thread("old")
        .resume(approve(), Arc::clone(&mailer))
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.output, "All done.");
    assert_eq!(mailer.recipients(), ["bob@example.com"]);
    assert_eq!(
        agent.thread("old").status().await.unwrap(),
        agentry::agent::ThreadStatus::Idle
    );
}

#[tokio::test]
async fn a_format_2_pause_reads_as_it_is_and_resumes() {
    let pause: Pause<Outbox> = serde_json::from_str(V2).unwrap();
    // Kept at 2: a seal made over it still matches.
    assert_eq!(pause.format_version, 2);
    assert!(
        pause
            .calls
            .iter()
            .all(|c| c.question.is_none() && c.result.is_none())
    );
    assert_eq!(pause.questions().count(), 0);
    // The same pause as format 1 upgrades to exactly this.
    let upgraded: Pause<Outbox> = serde_json::from_str(V1).unwrap();
    assert_eq!(
        serde_json::to_value(&upgraded).unwrap(),
        serde_json::to_value(&pause).unwrap()
    );
    // Written again, it is the fixture.
    let written = serde_json::to_value(&pause).unwrap();
    assert_eq!(written, serde_json::from_str::<Value>(V2).unwrap());
    let mailer = mailer();
    let run = agent(rest())
        .resume(pause, approve(), Arc::clone(&mailer))
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.output, "All done.");
    assert_eq!(mailer.recipients(), ["bob@example.com"]);
}

#[test]
fn a_format_2_pause_holding_a_question_or_a_saved_result_is_refused() {
    let question = json!({ "question": "ok?", "kind": "ask" });
    let result = json!({ "call_id": "s1", "name": "search", "content": [], "is_error": false });
    for (field, value) in [("question", question), ("result", result)] {
        let mut json: Value = serde_json::from_str(V2).unwrap();
        json["calls"][0][field] = value.clone();
        let err = serde_json::from_value::<Pause<Outbox>>(json.clone()).unwrap_err();
        assert!(err.to_string().contains("format 3"), "{err}");
        // The same call in format 3 reads.
        json["format_version"] = 3.into();
        let pause: Pause<Outbox> = serde_json::from_value(json).unwrap();
        assert!(pause.calls[0].question.is_some() || pause.calls[0].result.is_some());
    }
}

#[test]
fn a_format_1_or_2_pause_holding_a_question_key_is_refused_even_as_null() {
    // Format 1 had no questions: one that holds the key is not silently upgraded without it.
    let mut v1 = v1();
    v1["calls"][0]["question"] = json!({ "question": "ok?", "kind": "ask" });
    let err = serde_json::from_value::<Pause<Outbox>>(v1).unwrap_err();
    assert!(err.to_string().contains("format 3"), "{err}");
    // A present key is refused whatever its value.
    let mut v2: Value = serde_json::from_str(V2).unwrap();
    v2["calls"][0]["result"] = Value::Null;
    let err = serde_json::from_value::<Pause<Outbox>>(v2).unwrap_err();
    assert!(err.to_string().contains("format 3"), "{err}");
}

#[test]
fn a_format_1_review_without_its_call_id_is_refused() {
    let mut json = v1();
    json["calls"][1]["review"]
        .as_object_mut()
        .unwrap()
        .remove("call_id");
    let err = serde_json::from_value::<Pause<Outbox>>(json).unwrap_err();
    assert!(err.to_string().contains("call_id"), "{err}");
}
