//! A `Team` on a thread (`Team::thread`): the history and the answering agent saved in the
//! checkpointer, the next message answered by that agent, a dropped run recorded; and a
//! `TeamStream` read to its end still gives its result.

use agentry::agent::{AgentBuilder, NoTools};
use agentry::message::Message;
use agentry::multi::{Team, TeamError, TeamEvent};
use agentry::persist::InMemoryCheckpointer;
use agentry::testing::{ScriptedModel, Turn};
use futures::StreamExt;
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
