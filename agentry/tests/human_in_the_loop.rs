//! Human in the loop: a run pauses before reviewed tools run, the pause travels as JSON (to
//! another process, too), and `resume` goes on without asking the model again.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentry::agent::{
    Agent, AgentEvent, Outcome, Pause, ResumeError, RunErrorKind, RunResult, StopReason,
};
use agentry::middleware::{Decision, DecisionKind::*, HumanInTheLoop};
use agentry::output::TextOutput;
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use futures::StreamExt;
use serde_json::json;

#[path = "human_in_the_loop/across_processes.rs"]
mod across_processes;
#[path = "human_in_the_loop/unknown_tool.rs"]
mod unknown_tool;

#[derive(Debug, Default)]
struct Mailer {
    sent: AtomicUsize,
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
struct Outbox {
    sent: Vec<String>,
    searches: u32,
}

/// Send an email.
///
/// # Arguments
/// * `to` - The recipient's address.
/// * `body` - The text.
#[tool]
fn send_email(to: String, body: String, mailer: Context<Mailer>, outbox: State<Outbox>) -> String {
    mailer.sent.fetch_add(1, Ordering::SeqCst);
    let line = format!("{to}: {body}");
    outbox.update(move |o| o.sent.push(line));
    format!("sent to {to}")
}

/// Search the archive.
///
/// # Arguments
/// * `query` - What to look for.
#[tool]
fn search(query: String, outbox: State<Outbox>) -> String {
    outbox.update(|o| o.searches += 1);
    format!("3 results for {query}")
}

/// You send emails.
#[agent(tools(send_email, search), context = Mailer, state = Outbox)]
struct Assistant;

type Mail = Agent<Assistant, TextOutput, Mailer, Outbox>;

fn email_call(id: &str, to: &str) -> ToolCall {
    ToolCall::new(
        id,
        "send_email",
        json!({"to": to, "body": "hello"}).to_string(),
    )
}

/// One answer with a search, an email (reviewed) and another search, then a final answer
/// that quotes every tool result the model received.
fn model() -> ScriptedModel {
    ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("s1", "search", r#"{"query":"invoices"}"#),
            email_call("e1", "bob@example.com"),
            ToolCall::new("s2", "search", r#"{"query":"receipts"}"#),
        ])
        .with_usage(Usage {
            input_tokens: 10,
            output_tokens: 5,
            requests: 1,
            ..Usage::default()
        }),
        Turn::text("All done.").with_usage(Usage {
            input_tokens: 20,
            output_tokens: 3,
            requests: 1,
            ..Usage::default()
        }),
    ])
}

fn agent(model: impl agentry::agent::IntoSharedModel) -> Mail {
    Assistant::builder(model)
        .middleware(
            HumanInTheLoop::new()
                .review_tool::<send_email>(Approve | Edit | Reject | Respond)
                .describe("send_email", |call| {
                    format!("Send an email: {}", call.arguments)
                }),
        )
        .build()
}

fn start_state() -> Outbox {
    Outbox {
        sent: vec!["earlier".to_string()],
        searches: 0,
    }
}

async fn paused(model: Arc<ScriptedModel>) -> Pause<Outbox> {
    let agent = agent(model);
    let outcome = agent
        .run_or_pause_with_state("Email bob", Mailer::default(), start_state())
        .await
        .unwrap();
    match outcome {
        Outcome::Paused(pause) => *pause,
        Outcome::Finished(run) => panic!("expected a pause, got {:?}", run.output),
    }
}

fn tool_texts(run: &RunResult<String, Outbox>) -> Vec<(String, String)> {
    run.messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool(t) => Some((t.call_id.clone(), m.text())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_reviewed_call_pauses_the_whole_batch_before_anything_runs() {
    let model = Arc::new(model());
    let pause = paused(Arc::clone(&model)).await;
    assert_eq!(model.request_count(), 1);
    assert_eq!(pause.format_version, agentry::agent::PAUSE_FORMAT_VERSION);
    // Nothing ran: no step, no state change.
    assert!(pause.snapshot.steps.is_empty());
    assert_eq!(*pause.state(), start_state());
    // Three pending calls in the model's order, one reviewed, with parsed arguments.
    let ids: Vec<&str> = pause.calls.iter().map(|c| c.call.id.as_str()).collect();
    assert_eq!(ids, ["s1", "e1", "s2"]);
    let reviews: Vec<_> = pause.reviews().collect();
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0].call_id, "e1");
    assert!(reviews[0].description.starts_with("Send an email: "));
    assert_eq!(pause.calls[1].arguments()["to"], "bob@example.com");
    let typed = pause.calls[1].arguments_as::<send_email>().unwrap();
    assert_eq!(typed.to, "bob@example.com");
    // The pause is a value: JSON and back.
    let json = serde_json::to_string(&pause).unwrap();
    let back: Pause<Outbox> = serde_json::from_str(&json).unwrap();
    assert_eq!(serde_json::to_string(&back).unwrap(), json);
}

#[tokio::test]
async fn approve_runs_every_call_in_the_models_order_and_carries_state_and_usage() {
    let model = Arc::new(model());
    let pause = paused(Arc::clone(&model)).await;
    let mailer = Arc::new(Mailer::default());
    let agent = agent(Arc::clone(&model));
    let run = agent
        .resume(
            pause,
            [("e1".to_string(), Decision::Approve)],
            Arc::clone(&mailer),
        )
        .await
        .unwrap()
        .finished()
        .expect("finished");
    assert_eq!(run.output, "All done.");
    assert_eq!(
        model.request_count(),
        2,
        "the paused answer is not asked again"
    );
    assert_eq!(mailer.sent.load(Ordering::SeqCst), 1);
    assert_eq!(
        tool_texts(&run),
        [
            ("s1".to_string(), "3 results for invoices".to_string()),
            ("e1".to_string(), "sent to bob@example.com".to_string()),
            ("s2".to_string(), "3 results for receipts".to_string()),
        ]
    );
    assert_eq!(
        run.state,
        Outbox {
            sent: vec!["earlier".to_string(), "bob@example.com: hello".to_string()],
            searches: 2,
        }
    );
    assert_eq!(run.usage.requests, 2);
    assert_eq!(run.usage.input_tokens, 30);
    assert_eq!(run.usage.output_tokens, 8);
    assert_eq!(run.request_usage.len(), 2);
    assert_eq!(run.steps.len(), 3);
    assert!(run.steps.iter().all(|s| s.turn == 1));
}

#[tokio::test]
async fn edit_runs_the_call_with_the_new_arguments_and_the_transcript_shows_them() {
    let model = Arc::new(model());
    let pause = paused(Arc::clone(&model)).await;
    let edit = Decision::Edit {
        arguments: json!({"to": "carol@example.com", "body": "hi"}),
    };
    let run = agent(Arc::clone(&model))
        .resume(pause, [("e1".to_string(), edit)], Mailer::default())
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(tool_texts(&run)[1].1, "sent to carol@example.com");
    let Message::Assistant(answer) = &run.messages[2] else {
        panic!("the paused answer follows the user message");
    };
    assert!(answer.tool_calls[1].arguments.contains("carol@example.com"));
    // The model's next request saw the edited call.
    let second = &model.requests()[1];
    assert!(
        second
            .messages
            .iter()
            .any(|m| m.text() == "sent to carol@example.com")
    );
}

#[tokio::test]
async fn an_invalid_edit_is_a_typed_error_for_the_caller_and_nothing_runs() {
    let model = Arc::new(model());
    let pause = paused(Arc::clone(&model)).await;
    let mailer = Arc::new(Mailer::default());
    let edit = Decision::Edit {
        arguments: json!({"to": 42}),
    };
    let err = agent(Arc::clone(&model))
        .resume(pause, [("e1".to_string(), edit)], Arc::clone(&mailer))
        .await
        .unwrap_err();
    match err.kind() {
        RunErrorKind::Resume(ResumeError::InvalidEdit { call_id, error }) => {
            assert_eq!(call_id, "e1");
            assert!(error.to_string().contains("send_email"), "{error}");
        }
        other => panic!("expected an invalid edit, got {other:?}"),
    }
    assert_eq!(mailer.sent.load(Ordering::SeqCst), 0);
    assert_eq!(model.request_count(), 1);
}

#[tokio::test]
async fn reject_sends_the_message_to_the_model_and_respond_answers_for_the_tool() {
    for (decision, expected) in [
        (
            Decision::Reject {
                message: "Do not email bob.".to_string(),
            },
            "Do not email bob.",
        ),
        (
            Decision::Respond {
                content: "sent by hand".to_string(),
            },
            "sent by hand",
        ),
    ] {
        let model = Arc::new(model());
        let pause = paused(Arc::clone(&model)).await;
        let mailer = Arc::new(Mailer::default());
        let run = agent(Arc::clone(&model))
            .resume(pause, [("e1".to_string(), decision)], Arc::clone(&mailer))
            .await
            .unwrap()
            .finished()
            .unwrap();
        assert_eq!(
            mailer.sent.load(Ordering::SeqCst),
            0,
            "the tool did not run"
        );
        let texts = tool_texts(&run);
        assert_eq!(texts[1], ("e1".to_string(), expected.to_string()));
        assert_eq!(texts[0].1, "3 results for invoices", "unreviewed calls run");
        assert_eq!(run.state.searches, 2);
        assert_eq!(run.state.sent, vec!["earlier".to_string()]);
    }
}

#[tokio::test]
async fn decisions_that_do_not_fit_the_pause_are_refused() {
    let model = Arc::new(model());
    let pause = paused(Arc::clone(&model)).await;
    let agent = agent(Arc::clone(&model));
    type Case = (Vec<(String, Decision)>, fn(&ResumeError) -> bool);
    let cases: Vec<Case> = vec![
        (
            Vec::new(),
            |e| matches!(e, ResumeError::MissingDecision { call_id, .. } if call_id == "e1"),
        ),
        (
            vec![("s1".to_string(), Decision::Approve)],
            |e| matches!(e, ResumeError::NotUnderReview { call_id } if call_id == "s1"),
        ),
        (
            vec![
                ("e1".to_string(), Decision::Approve),
                ("e1".to_string(), Decision::Approve),
            ],
            |e| matches!(e, ResumeError::DuplicateDecision { .. }),
        ),
    ];
    for (decisions, check) in cases {
        let err = agent
            .resume(pause.clone(), decisions, Mailer::default())
            .await
            .unwrap_err();
        match err.kind() {
            RunErrorKind::Resume(e) => assert!(check(e), "{e}"),
            other => panic!("{other:?}"),
        }
    }
    let mut old = pause.clone();
    old.format_version = 99;
    let err = agent
        .resume(old, Vec::<(String, Decision)>::new(), Mailer::default())
        .await
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        RunErrorKind::Resume(ResumeError::Version { found: 99, .. })
    ));
}

#[tokio::test]
async fn a_decision_the_policy_does_not_allow_is_refused() {
    let model = Arc::new(model());
    let agent = Assistant::builder(Arc::clone(&model))
        .middleware(HumanInTheLoop::new().review("send_email", Approve | Reject))
        .build();
    let pause = agent
        .run_or_pause("Email bob", Mailer::default())
        .await
        .unwrap()
        .paused()
        .unwrap();
    let respond = Decision::Respond {
        content: "x".to_string(),
    };
    let err = agent
        .resume(pause, [("e1".to_string(), respond)], Mailer::default())
        .await
        .unwrap_err();
    assert!(
        matches!(err.kind(), RunErrorKind::Resume(ResumeError::NotAllowed { decision, .. }) if *decision == Respond),
        "{err}"
    );
}

#[tokio::test]
async fn plain_run_reports_the_pause_as_an_error_naming_the_entry_point() {
    let agent = agent(model());
    let err = agent.run("Email bob", Mailer::default()).await.unwrap_err();
    assert!(matches!(err.kind(), RunErrorKind::Paused { tools } if tools == &["send_email"]));
    assert!(err.to_string().contains("run_or_pause"), "{err}");
}

#[tokio::test]
async fn streaming_ends_with_a_paused_event_and_resume_streams_on() {
    let model = Arc::new(model());
    let agent = agent(Arc::clone(&model));
    let mut stream = agent.stream_with_state("Email bob", Mailer::default(), start_state());
    let mut last = None;
    while let Some(event) = stream.next().await {
        last = Some(event.unwrap());
    }
    let Some(AgentEvent::Paused(pause)) = last else {
        panic!("the last event is Paused");
    };
    let mut resumed = agent.resume_stream(
        *pause,
        [("e1".to_string(), Decision::Approve)],
        Mailer::default(),
    );
    let mut results = 0;
    let mut done = None;
    while let Some(event) = resumed.next().await {
        match event.unwrap() {
            AgentEvent::ToolResult(_) => results += 1,
            AgentEvent::Done { .. } => done = Some(()),
            _ => {}
        }
    }
    assert_eq!(results, 3);
    assert!(done.is_some());
    assert_eq!(resumed.result().await.unwrap().output, "All done.");
}

#[tokio::test]
async fn an_answer_without_reviewed_calls_does_not_pause() {
    let model = ScriptedModel::new([
        Turn::tool_call("search", json!({"query": "x"})),
        Turn::text("ok"),
    ]);
    let outcome = agent(model)
        .run_or_pause("hi", Mailer::default())
        .await
        .unwrap();
    let run = outcome.finished().unwrap();
    assert_eq!(run.stop_reason, StopReason::FinalAnswer);
}

// --- The pause crosses a process boundary -------------------------------------------------

/// Declared in the attribute: the review policy, then the listed middleware.
#[agent(
    tools(send_email, search),
    context = Mailer,
    state = Outbox,
    review(send_email(approve, reject)),
    middleware(agentry::middleware::ToolErrorHandler::always("unavailable"))
)]
struct Declared;

#[tokio::test]
async fn review_and_middleware_declared_in_the_attribute() {
    let model = Arc::new(model());
    let agent = Declared::builder(Arc::clone(&model)).build();
    let pause = agent
        .run_or_pause("Email bob", Mailer::default())
        .await
        .unwrap()
        .paused()
        .expect("send_email is reviewed");
    let reviews: Vec<_> = pause.reviews().collect();
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0].allowed, Approve | Reject);
    let run = agent
        .resume(
            pause,
            [("e1".to_string(), Decision::Approve)],
            Mailer::default(),
        )
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.output, "All done.");
}
