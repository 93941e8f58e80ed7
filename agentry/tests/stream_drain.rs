//! An agent stream read to its end still gives its result: `Done` marks the end, and
//! `result()` / `outcome()` after the last event return what the run produced.

use agentry::agent::{AgentBuilder, AgentEvent, NoTools, StopReason};
use agentry::testing::{ScriptedModel, Turn};
use futures::StreamExt;

fn agent() -> agentry::agent::Agent<NoTools, agentry::output::TextOutput, (), ()> {
    AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("Hello.")]), NoTools).build()
}

#[tokio::test]
async fn result_after_the_stream_was_drained() {
    let agent = agent();
    let mut stream = agent.stream("Hi", ());
    let mut done = 0;
    while let Some(event) = stream.next().await {
        if let AgentEvent::Done { stop_reason, .. } = event.unwrap() {
            assert_eq!(stop_reason, StopReason::FinalAnswer);
            done += 1;
        }
    }
    assert_eq!(done, 1);
    assert!(stream.next().await.is_none(), "the stream stays ended");
    let run = stream.result().await.expect("the held result");
    assert_eq!(run.output, "Hello.");
}

#[tokio::test]
async fn result_without_reading_the_stream() {
    let agent = agent();
    let run = agent.stream("Hi", ()).result().await.unwrap();
    assert_eq!(run.output, "Hello.");
}

#[tokio::test]
async fn result_after_some_events() {
    let agent = agent();
    let mut stream = agent.stream("Hi", ());
    let first = stream.next().await.unwrap().unwrap();
    assert!(matches!(first, AgentEvent::TurnStart { turn: 1 }));
    let run = stream.result().await.unwrap();
    assert_eq!(run.output, "Hello.");
    assert_eq!(run.stop_reason, StopReason::FinalAnswer);
}
