//! A `Team` on a thread (`Team::thread`): the history and the answering agent saved in the
//! checkpointer, the next message answered by that agent, a dropped run recorded; and a
//! `TeamStream` read to its end still gives its result; a member's reviewed tool pauses the
//! thread, and `TeamThread::resume` goes on (approved, rejected, refused, once).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentry::agent::{
    AgentBuilder, FnTool, NoTools, ResumeError, RunErrorKind, ThreadError, ThreadStatus,
};
use agentry::message::Message;
use agentry::middleware::{Decision, DecisionKind::*, HumanInTheLoop};
use agentry::multi::{Team, TeamError, TeamEvent};
use agentry::persist::InMemoryCheckpointer;
use agentry::testing::{ScriptedModel, Turn};
use agentry::tool::{ToolCallError, ToolDefinition, ToolOutput, ToolRuntime};
use futures::StreamExt;
use serde_json::Value;
use serde_json::json;

fn team(billing: ScriptedModel) -> Team<String, ()> {
    let triage = ScriptedModel::new([Turn::tool_call("transfer_to_billing", json!({}))]);
    Team::<String, ()>::builder()
        .agent(
            "triage",
            "Routes requests.",
            AgentBuilder::<_, _, (), ()>::new(triage, NoTools).instructions("Route."),
        )
        .agent(
            "billing",
            "Answers billing questions.",
            AgentBuilder::<_, _, (), ()>::new(billing, NoTools),
        )
        .handoff("triage", "billing")
        .checkpointer(InMemoryCheckpointer::default())
        .build()
        .unwrap()
}

fn roles(messages: &[Message]) -> Vec<&'static str> {
    messages
        .iter()
        .map(|m| match m {
            Message::User(_) => "user",
            Message::Assistant(_) => "assistant",
            Message::Tool(_) => "tool",
            _ => "other",
        })
        .collect()
}

#[tokio::test]
async fn a_team_thread_keeps_its_history_and_the_answering_agent() {
    let team = team(ScriptedModel::new([
        Turn::text("Refunded."),
        Turn::text("You're welcome."),
    ]));
    let thread = team.thread("t");
    assert_eq!(thread.load().await.unwrap(), None);
    let first = thread.run("I was charged twice.", ()).await.unwrap();
    assert_eq!(
        roles(&first.added),
        ["user", "assistant", "tool", "assistant"]
    );
    let saved = thread.load().await.unwrap().unwrap();
    assert_eq!((saved.agent.as_str(), saved.cancelled), ("billing", false));
    assert_eq!(saved.messages, first.added);
    let second = thread.run("Thanks!", ()).await.unwrap();
    assert_eq!(
        (second.agent.as_str(), second.output.as_str()),
        ("billing", "You're welcome.")
    );
    assert!(second.handoffs.is_empty());
    let saved = thread.load().await.unwrap().unwrap();
    assert_eq!(
        roles(&saved.messages),
        [
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
            "assistant"
        ]
    );
    assert_eq!(saved.messages.last().unwrap().text(), "You're welcome.");
}

#[tokio::test]
async fn a_dropped_team_run_is_recorded_and_changes_nothing() {
    let team = team(ScriptedModel::new([
        Turn::text("Refunded."),
        Turn::text("Again."),
    ]));
    let thread = team.thread("t");
    thread.run("I was charged twice.", ()).await.unwrap();
    let before = thread.load().await.unwrap().unwrap();
    thread.cancel().await.unwrap();
    let after = thread.load().await.unwrap().unwrap();
    assert!(after.cancelled);
    assert_eq!(
        (after.messages, after.agent),
        (before.messages, before.agent)
    );
    thread.run("Once more.", ()).await.unwrap();
    assert!(!thread.load().await.unwrap().unwrap().cancelled);
}

#[tokio::test]
async fn a_team_stream_read_to_its_end_still_gives_its_result() {
    let team = team(ScriptedModel::new([Turn::text("Refunded.")]));
    let mut stream = team.stream("I was charged twice.", ());
    let mut done = None;
    while let Some(event) = stream.next().await {
        if let TeamEvent::Done { agent, usage, .. } = event.unwrap() {
            done = Some((agent, usage.requests));
        }
    }
    assert_eq!(done, Some(("billing".to_owned(), 2)));
    let result = stream.result().await.unwrap();
    assert_eq!(
        (result.agent.as_str(), result.output.as_str()),
        ("billing", "Refunded.")
    );
}

#[tokio::test]
async fn a_failed_team_stream_read_to_its_end_says_its_error_was_taken() {
    let team = team(ScriptedModel::new([]));
    let mut stream = team.stream("I was charged twice.", ());
    let mut last = None;
    while let Some(event) = stream.next().await {
        last = Some(event);
    }
    assert!(
        matches!(last, Some(Err(TeamError::Agent { .. }))),
        "{last:?}"
    );
    assert!(matches!(stream.result().await, Err(TeamError::ErrorTaken)));
}

/// How often the reviewed `send_email` ran.
type Sent = Arc<AtomicUsize>;

/// triage → billing → closer: billing's `send_email` is reviewed (approve or reject); after
/// it, billing's model says `after` (a handoff to closer, or an answer).
fn reviewed_team(after: Turn) -> (Team<String, ()>, Sent) {
    let sent = Sent::default();
    let counter = Arc::clone(&sent);
    let definition = ToolDefinition::new(
        "send_email",
        "Sends an email.",
        json!({"type": "object", "properties": {"to": {"type": "string"}}}),
        false,
    );
    let send_email = FnTool::new(definition, move |_: Value, _: &ToolRuntime<(), ()>| {
        counter.fetch_add(1, Ordering::SeqCst);
        async { Ok::<_, ToolCallError>(ToolOutput::text("sent to bob")) }
    });
    let triage = ScriptedModel::new([Turn::tool_call("transfer_to_billing", json!({}))]);
    let billing = ScriptedModel::new([
        Turn::tool_call("send_email", json!({"to": "bob@example.com"})),
        after,
    ]);
    let closer = ScriptedModel::new([Turn::text("Anything else?")]);
    let team = Team::<String, ()>::builder()
        .agent(
            "triage",
            "Routes requests.",
            AgentBuilder::<_, _, (), ()>::new(triage, NoTools),
        )
        .agent(
            "billing",
            "Sends invoices.",
            AgentBuilder::<_, _, (), ()>::new(billing, NoTools)
                .dyn_tool(send_email)
                .middleware(HumanInTheLoop::new().review("send_email", Approve | Reject)),
        )
        .agent(
            "closer",
            "Closes conversations.",
            AgentBuilder::<_, _, (), ()>::new(closer, NoTools),
        )
        .handoff("triage", "billing")
        .handoff("billing", "closer")
        .checkpointer(InMemoryCheckpointer::default())
        .build()
        .unwrap();
    (team, sent)
}

/// Runs the reviewed team on thread `t` until it pauses; the reviewed call's id.
async fn paused(team: &Team<String, ()>) -> String {
    let thread = team.thread("t");
    let error = thread.run("Email Bob the invoice.", ()).await.unwrap_err();
    assert!(
        matches!(&error, TeamError::Paused { agent, tools } if agent == "billing" && tools == &["send_email"]),
        "{error:?}"
    );
    let saved = thread.load().await.unwrap().unwrap();
    let pending = saved.pending.expect("the thread is paused");
    assert_eq!(pending.agent, "billing");
    assert_eq!(saved.agent, "billing");
    // The input and triage's transfer are saved; billing's paused answer is in the pause.
    assert_eq!(roles(&saved.messages), ["user", "assistant", "tool"]);
    let reviews: Vec<_> = pending.reviews().collect();
    assert_eq!(reviews.len(), 1);
    pending
        .calls
        .iter()
        .find(|c| c.review.is_some())
        .unwrap()
        .call
        .id
        .clone()
}

#[tokio::test]
async fn a_paused_team_thread_resumes_approved_and_hands_off_after() {
    let (team, sent) = reviewed_team(Turn::tool_call("transfer_to_closer", json!({})));
    let call_id = paused(&team).await;
    let thread = team.thread("t");
    assert_eq!(sent.load(Ordering::SeqCst), 0);
    // A paused thread takes no new message.
    let refused = thread.run("Hello?", ()).await.unwrap_err();
    assert!(
        matches!(
            &refused,
            TeamError::Thread(ThreadError::Status {
                found: ThreadStatus::Paused,
                ..
            })
        ),
        "{refused:?}"
    );

    let run = thread
        .resume([(call_id.clone(), Decision::Approve)], ())
        .await
        .unwrap();
    assert_eq!(sent.load(Ordering::SeqCst), 1);
    assert_eq!(
        (run.agent.as_str(), run.output.as_str()),
        ("closer", "Anything else?")
    );
    // The run's handoffs: before the pause, and after it.
    let handoffs =
        [("triage", "billing"), ("billing", "closer")].map(|(a, b)| (a.to_owned(), b.to_owned()));
    assert_eq!(run.handoffs, handoffs);
    // What the resumed run added: billing's call and result, its transfer, closer's answer.
    assert_eq!(
        roles(&run.added),
        ["assistant", "tool", "assistant", "tool", "assistant"]
    );
    let saved = thread.load().await.unwrap().unwrap();
    assert_eq!(saved.pending, None);
    assert_eq!(saved.agent, "closer");
    // user, triage's transfer; billing's call and its result, billing's transfer; closer.
    assert_eq!(
        roles(&saved.messages),
        [
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant"
        ]
    );
    assert_eq!(saved.messages[4].text(), "sent to bob");
    // Single use: the pause is gone.
    let again = thread
        .resume([(call_id, Decision::Approve)], ())
        .await
        .unwrap_err();
    assert!(
        matches!(&again, TeamError::Thread(ThreadError::Status { .. })),
        "{again:?}"
    );
    assert_eq!(sent.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_rejected_call_does_not_run_and_the_agent_answers() {
    let (team, sent) = reviewed_team(Turn::text("I did not send it."));
    let call_id = paused(&team).await;
    let thread = team.thread("t");
    let reject = Decision::Reject {
        message: "Do not email Bob.".into(),
    };
    let run = thread.resume([(call_id, reject)], ()).await.unwrap();
    assert_eq!(sent.load(Ordering::SeqCst), 0);
    assert_eq!(
        (run.agent.as_str(), run.output.as_str()),
        ("billing", "I did not send it.")
    );
    let saved = thread.load().await.unwrap().unwrap();
    assert_eq!(saved.pending, None);
    assert_eq!(saved.messages[4].text(), "Do not email Bob.");
}

#[tokio::test]
async fn refused_decisions_leave_the_team_thread_paused() {
    let (team, sent) = reviewed_team(Turn::text("Sent."));
    let call_id = paused(&team).await;
    let thread = team.thread("t");
    // Edit is not allowed for send_email: the agent's own checks refuse it.
    let edit = Decision::Edit {
        arguments: json!({"to": "eve@example.com"}),
    };
    let refused = thread
        .resume([(call_id.clone(), edit)], ())
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, TeamError::Agent { agent, error } if agent == "billing"
            && matches!(error.kind(), RunErrorKind::Resume(ResumeError::NotAllowed { .. }))),
        "{refused:?}"
    );
    let missing = thread
        .resume(Vec::<(String, Decision)>::new(), ())
        .await
        .unwrap_err();
    assert!(
        matches!(&missing, TeamError::Agent { error, .. }
            if matches!(error.kind(), RunErrorKind::Resume(ResumeError::MissingDecision { .. }))),
        "{missing:?}"
    );
    assert_eq!(sent.load(Ordering::SeqCst), 0);
    assert!(thread.load().await.unwrap().unwrap().pending.is_some());
    let run = thread
        .resume([(call_id, Decision::Approve)], ())
        .await
        .unwrap();
    assert_eq!(
        (run.output.as_str(), sent.load(Ordering::SeqCst)),
        ("Sent.", 1)
    );
}

#[tokio::test]
async fn two_resumes_of_one_pause_run_its_tool_once() {
    let (team, sent) = reviewed_team(Turn::text("Sent."));
    let call_id = paused(&team).await;
    let (a, b) = (team.thread("t"), team.thread("t"));
    let (first, second) = tokio::join!(
        a.resume([(call_id.clone(), Decision::Approve)], ()),
        b.resume([(call_id, Decision::Approve)], ()),
    );
    assert_eq!(
        [first.is_ok(), second.is_ok()]
            .iter()
            .filter(|ok| **ok)
            .count(),
        1,
        "{first:?} {second:?}"
    );
    assert_eq!(sent.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_team_without_a_thread_still_ends_at_a_pause() {
    let (team, sent) = reviewed_team(Turn::text("Sent."));
    let error = team.run("Email Bob the invoice.", ()).await.unwrap_err();
    assert!(matches!(error, TeamError::Paused { .. }), "{error:?}");
    assert_eq!(sent.load(Ordering::SeqCst), 0);
}
