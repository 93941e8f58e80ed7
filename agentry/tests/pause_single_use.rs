//! Single use: an agent with a checkpointer (or a store) resumes each pause once, whichever
//! way it is resumed; without either, a pause has no id and nothing is recorded.

mod pause_support;

use std::sync::Arc;

use agentry::agent::{Pause, ResumeError, RunErrorKind};
use agentry::middleware::{Decision, DecisionKind::*};
use agentry::persist::{CheckpointWrite, Checkpointer, InMemoryCheckpointer};
use agentry::testing::{ScriptedModel, Turn};
use pause_support::*;

fn approve() -> [(String, Decision); 1] {
    [("e1".to_string(), Decision::Approve)]
}

fn persisting(model: impl agentry::agent::IntoSharedModel, cp: &Arc<InMemoryCheckpointer>) -> Mail {
    builder(model, Approve | Reject)
        .shared_checkpointer(Arc::clone(cp) as Arc<dyn Checkpointer>)
        .build()
}

fn already_resumed(err: &agentry::agent::RunError, pause: &Pause<Outbox>) -> bool {
    matches!(
        err.kind(),
        RunErrorKind::Resume(ResumeError::AlreadyResumed { id }) if Some(id) == pause.id.as_ref()
    )
}

/// The pause of a run in thread `t` of `agent`.
async fn paused_in_thread(agent: &Mail) -> Pause<Outbox> {
    agent
        .thread("t")
        .run_or_pause("Email bob", Mailer::default())
        .await
        .unwrap()
        .paused()
        .unwrap()
}

#[tokio::test]
async fn a_pause_resumes_once_when_the_agent_has_a_checkpointer() {
    let cp = Arc::new(InMemoryCheckpointer::default());
    let pause = pause_of(&persisting(model(), &cp)).await;
    assert!(pause.id.is_some());
    let mailer = mailer();
    let agent = persisting(
        ScriptedModel::new([Turn::text("All done."), Turn::text("Again.")]),
        &cp,
    );
    agent
        .resume(pause.clone(), approve(), Arc::clone(&mailer))
        .await
        .unwrap();
    let err = agent
        .resume(pause.clone(), approve(), Arc::clone(&mailer))
        .await
        .unwrap_err();
    assert!(already_resumed(&err, &pause), "{err}");
    assert_eq!(mailer.sent(), 1);
}

#[tokio::test]
async fn two_resumes_at_once_run_the_tools_once() {
    let cp = Arc::new(InMemoryCheckpointer::default());
    let pause = pause_of(&persisting(model(), &cp)).await;
    let mailer = mailer();
    let agent = persisting(
        ScriptedModel::new([Turn::text("All done."), Turn::text("Again.")]),
        &cp,
    );
    let (a, b) = futures::join!(
        agent.resume(pause.clone(), approve(), Arc::clone(&mailer)),
        agent.resume(pause.clone(), approve(), Arc::clone(&mailer)),
    );
    let refused = [&a, &b]
        .into_iter()
        .filter(|r| r.as_ref().is_err_and(|e| already_resumed(e, &pause)))
        .count();
    assert_eq!(refused, 1, "{a:?} {b:?}");
    assert_eq!(mailer.sent(), 1);
}

#[tokio::test]
async fn a_refused_decision_does_not_use_the_pause_up() {
    let cp = Arc::new(InMemoryCheckpointer::default());
    let pause = pause_of(&persisting(model(), &cp)).await;
    let agent = persisting(rest(), &cp);
    let respond = Decision::Respond {
        content: "x".to_string(),
    };
    let err = agent
        .resume(
            pause.clone(),
            [("e1".to_string(), respond)],
            Mailer::default(),
        )
        .await
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        RunErrorKind::Resume(ResumeError::NotAllowed { .. })
    ));
    agent
        .resume(pause, approve(), Mailer::default())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_thread_pause_resumed_with_agent_resume_is_not_resumed_again_by_the_thread() {
    let cp = Arc::new(InMemoryCheckpointer::default());
    let agent = persisting(model(), &cp);
    let pause = paused_in_thread(&agent).await;
    let mailer = mailer();
    let pending = agent.thread("t").pending().await.unwrap().unwrap();
    assert_eq!(pending.id, pause.id);
    persisting(rest(), &cp)
        .resume(pending, approve(), Arc::clone(&mailer))
        .await
        .unwrap();
    let err = persisting(rest(), &cp)
        .thread("t")
        .resume(approve(), Arc::clone(&mailer))
        .await
        .unwrap_err();
    assert!(already_resumed(&err, &pause), "{err}");
    assert_eq!(mailer.sent(), 1);
}

#[tokio::test]
async fn a_thread_resume_that_stopped_before_its_first_save_can_be_resumed_again() {
    let cp = Arc::new(InMemoryCheckpointer::default());
    let agent = persisting(model(), &cp);
    let pause = paused_in_thread(&agent).await;
    let step = agent.thread("t").history(1).await.unwrap()[0].step;
    // What a `Thread::resume` leaves when its process dies after claiming the pause and
    // before the thread's first save (so before any tool ran): the marker, naming the thread.
    let marker = format!("agentry-resumed-pause-{}", pause.id.as_deref().unwrap());
    let by = serde_json::json!({ "thread_id": "t", "step": step });
    cp.put(CheckpointWrite::first(&marker, &[], &by))
        .await
        .unwrap();
    // Another path cannot take it...
    let err = persisting(rest(), &cp)
        .resume(pause.clone(), approve(), Mailer::default())
        .await
        .unwrap_err();
    assert!(already_resumed(&err, &pause), "{err}");
    // ...the thread can.
    let mailer = mailer();
    let run = persisting(rest(), &cp)
        .thread("t")
        .resume(approve(), Arc::clone(&mailer))
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.output, "All done.");
    assert_eq!(mailer.sent(), 1);
    let err = persisting(rest(), &cp)
        .resume(pause.clone(), approve(), Mailer::default())
        .await
        .unwrap_err();
    assert!(already_resumed(&err, &pause), "{err}");
}

#[tokio::test]
async fn with_a_store_and_no_checkpointer_a_pause_resumes_once() {
    use agentry::agent::PAUSE_STORE_NAMESPACE;
    let store = agentry::Store::in_memory();
    let with_store = |model: ScriptedModel| {
        builder(model, Approve | Reject)
            .store(store.clone())
            .build()
    };
    let pause = pause_of(&with_store(model())).await;
    let id = pause
        .id
        .clone()
        .expect("a pause of an agent with a store has an id");
    assert!(
        store
            .get(&PAUSE_STORE_NAMESPACE, &id)
            .await
            .unwrap()
            .is_some()
    );
    let mailer = mailer();
    let agent = with_store(ScriptedModel::new([
        Turn::text("All done."),
        Turn::text("Again."),
    ]));
    agent
        .resume(pause.clone(), approve(), Arc::clone(&mailer))
        .await
        .unwrap();
    assert_eq!(store.get(&PAUSE_STORE_NAMESPACE, &id).await.unwrap(), None);
    let err = agent
        .resume(pause.clone(), approve(), Arc::clone(&mailer))
        .await
        .unwrap_err();
    assert!(already_resumed(&err, &pause), "{err}");
    assert_eq!(mailer.sent(), 1);
}

#[tokio::test]
async fn without_a_checkpointer_or_store_a_pause_has_no_id_and_the_caller_ensures_single_use() {
    let pause = pause_of(&agent(model())).await;
    assert_eq!(pause.id, None);
}
