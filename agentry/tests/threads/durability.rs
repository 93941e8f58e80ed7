//! `Durability::Exit`: a run that saves only its end writes one checkpoint and leaves the same
//! thread as a run saving every step; killed before its end it leaves the thread as it was;
//! a concurrent run on the thread is found when the later one saves.

use agentry::agent::Durability;
use agentry::persist::{Checkpointer, PersistError};

use super::*;

fn buy_tea() -> ScriptedModel {
    ScriptedModel::new([
        Turn::tool_calls([
            call("l1", "lookup", json!({"key": "tea"})),
            call("c1", "charge", json!({"amount": 5})),
        ]),
        Turn::text("Done."),
    ])
}

#[tokio::test]
async fn a_run_saving_its_end_writes_one_checkpoint_and_the_same_thread() {
    let dir = tempfile::tempdir().unwrap();
    let cp: Arc<dyn Checkpointer> = Arc::new(
        SqliteCheckpointer::open(dir.path().join("d.db"))
            .await
            .unwrap(),
    );
    let every_step = till(buy_tea(), Arc::clone(&cp));
    let at_exit = Cashier::builder(buy_tea())
        .shared_checkpointer(Arc::clone(&cp))
        .durability(Durability::Exit)
        .build();
    let a = every_step
        .thread("step")
        .run("Buy tea", Shop::default())
        .await
        .unwrap();
    let b = at_exit
        .thread("exit")
        .run("Buy tea", Shop::default())
        .await
        .unwrap();
    assert_eq!(a.messages, b.messages);
    assert_eq!(a.state, b.state);
    let counts = |history: Vec<agentry::persist::CheckpointMeta>| {
        let mut counts: Vec<u64> = history.iter().map(|m| m.message_count).collect();
        counts.reverse();
        counts
    };
    let step = every_step.thread("step").history(10).await.unwrap();
    assert_eq!(counts(step), [1, 2, 4, 5]);
    let exit = at_exit.thread("exit").history(10).await.unwrap();
    assert_eq!(counts(exit), [5]);
    for id in ["step", "exit"] {
        let thread = at_exit.thread(id);
        assert_eq!(thread.status().await.unwrap(), ThreadStatus::Idle);
        assert_eq!(thread.messages().await.unwrap(), a.messages[1..]);
        assert_eq!(thread.state().await.unwrap().unwrap(), a.state);
    }
    // The next run continues the thread saved at its end, from the agent's cache and from
    // another agent that loads it.
    let again = Cashier::builder(ScriptedModel::new([Turn::text("Bye.")]))
        .shared_checkpointer(cp)
        .durability(Durability::Exit)
        .build();
    let run = again
        .thread("exit")
        .run("Thanks", Shop::default())
        .await
        .unwrap();
    assert_eq!(run.messages.len(), a.messages.len() + 2);
    assert_eq!(run.state, a.state);
}

#[tokio::test]
async fn one_thread_saves_at_every_step_although_the_agent_saves_at_exit() {
    let cp: Arc<dyn Checkpointer> = Arc::new(InMemoryCheckpointer::default());
    let agent = Cashier::builder(buy_tea())
        .shared_checkpointer(cp)
        .durability(Durability::Exit)
        .build();
    let thread = agent.thread("t").durability(Durability::Step);
    thread.run("Buy tea", Shop::default()).await.unwrap();
    assert_eq!(agent.thread("t").history(10).await.unwrap().len(), 4);
}

#[tokio::test]
async fn a_run_killed_before_its_end_leaves_the_thread_as_it_was() {
    let cp: Arc<dyn Checkpointer> = Arc::new(InMemoryCheckpointer::default());
    let first = Cashier::builder(ScriptedModel::new([Turn::text("Hello.")]))
        .shared_checkpointer(Arc::clone(&cp))
        .durability(Durability::Exit)
        .build();
    first.thread("k").run("Hi", Shop::default()).await.unwrap();
    let before = first.thread("k").messages().await.unwrap();

    let agent = Cashier::builder(buy_tea())
        .shared_checkpointer(Arc::clone(&cp))
        .durability(Durability::Exit)
        .build();
    let shop = Arc::new(Shop {
        gate: Some(Arc::new(Notify::new())),
        ..Shop::default()
    });
    let started = Arc::clone(&shop.started);
    let thread = agent.thread("k");
    tokio::select! {
        _ = thread.run("Buy tea", Arc::clone(&shop)) => panic!("the run finished"),
        _ = started.notified() => {}
    }
    // The charge happened; the thread knows nothing of the run.
    assert_eq!(shop.charges.load(Ordering::SeqCst), 1);
    let thread = agent.thread("k");
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::Idle);
    assert_eq!(thread.messages().await.unwrap(), before);
    assert_eq!(thread.history(10).await.unwrap().len(), 1);
    let err = thread.recover(Shop::default()).await.unwrap_err();
    assert!(
        matches!(
            err.kind(),
            RunErrorKind::Thread(ThreadError::Status {
                found: ThreadStatus::Idle,
                ..
            })
        ),
        "{err}"
    );
}

#[tokio::test]
async fn of_two_runs_at_once_on_a_thread_the_later_save_fails_with_a_conflict() {
    let cp: Arc<dyn Checkpointer> = Arc::new(InMemoryCheckpointer::default());
    let slow = Cashier::builder(buy_tea())
        .shared_checkpointer(Arc::clone(&cp))
        .durability(Durability::Exit)
        .build();
    let fast = Cashier::builder(ScriptedModel::new([Turn::text("Hello.")]))
        .shared_checkpointer(Arc::clone(&cp))
        .durability(Durability::Exit)
        .build();
    let gate = Arc::new(Notify::new());
    let shop = Arc::new(Shop {
        gate: Some(Arc::clone(&gate)),
        ..Shop::default()
    });
    let started = Arc::clone(&shop.started);
    let slow_thread = slow.thread("c");
    let slow_run = slow_thread.run("Buy tea", Arc::clone(&shop));
    let fast_run = async {
        // The slow run is inside `charge` when the fast one starts, and goes on after it ended.
        started.notified().await;
        let run = fast.thread("c").run("Hi", Shop::default()).await;
        gate.notify_one();
        run
    };
    let (slow_run, fast_run) = tokio::join!(slow_run, fast_run);
    assert_eq!(fast_run.unwrap().output, "Hello.");
    let err = slow_run.unwrap_err();
    assert!(
        matches!(
            err.kind(),
            RunErrorKind::Thread(ThreadError::Persist(PersistError::Conflict { .. }))
        ),
        "{err:?}"
    );
    // The slow run's charge took effect; the thread holds the fast run only.
    assert_eq!(shop.charges.load(Ordering::SeqCst), 1);
    let saved = fast.thread("c").messages().await.unwrap();
    assert_eq!(saved, [Message::user("Hi"), Message::assistant("Hello.")]);
}

#[tokio::test]
async fn a_pause_is_saved_and_resumed_when_runs_save_only_their_end() {
    let reviewed = |model: ScriptedModel, cp: Arc<dyn Checkpointer>, durability| {
        Cashier::builder(model)
            .shared_checkpointer(cp)
            .middleware(HumanInTheLoop::new().review_tool::<charge>(Approve | Reject))
            .durability(durability)
            .build()
    };
    let mut finished = Vec::new();
    for durability in [Durability::Step, Durability::Exit] {
        let cp: Arc<dyn Checkpointer> = Arc::new(InMemoryCheckpointer::default());
        let model = ScriptedModel::new([
            Turn::text("Hi."),
            Turn::tool_calls([
                call("l1", "lookup", json!({"key": "tea"})),
                call("c1", "charge", json!({"amount": 5})),
            ]),
        ]);
        let agent = reviewed(model, Arc::clone(&cp), durability);
        // The agent's first request shows that the review leaves `before_model` alone (it
        // cannot compact): until then a run saving its end saves its input too.
        agent
            .thread("w")
            .run("Hello", Shop::default())
            .await
            .unwrap();
        let warm = agent.thread("w").history(10).await.unwrap().len();
        assert_eq!(warm, 2, "{durability:?}");
        let thread = agent.thread("p");
        let outcome = thread
            .run_or_pause("Buy tea", Shop::default())
            .await
            .unwrap();
        assert!(matches!(outcome, Outcome::Paused(_)));
        assert_eq!(thread.status().await.unwrap(), ThreadStatus::Paused);
        let writes = thread.history(10).await.unwrap().len();
        let expected = if durability == Durability::Exit { 1 } else { 2 };
        assert_eq!(writes, expected, "{durability:?}");
        // Another agent resumes it from the thread.
        let model = ScriptedModel::new([Turn::text("Charged.")]);
        let other = reviewed(model, cp, durability);
        let decisions = [("c1".to_string(), Decision::Approve)];
        let run = other
            .thread("p")
            .resume(decisions, Shop::default())
            .await
            .unwrap()
            .finished()
            .unwrap();
        assert_eq!(run.state.charged, 5);
        assert_eq!(
            other.thread("p").status().await.unwrap(),
            ThreadStatus::Idle
        );
        let saved = other.thread("p").messages().await.unwrap();
        assert_eq!(saved, run.messages[1..]);
        finished.push(run.messages);
    }
    assert_eq!(finished[0], finished[1]);
}
