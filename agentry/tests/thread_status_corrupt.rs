//! A thread whose saved run status does not decode is an error, not an idle thread: a new run
//! over it would start on top of a paused (or running) one and lose its pending pause.

use std::error::Error as _;
use std::sync::Arc;

use agentry::agent::{Outcome, RunErrorKind, ThreadError};
use agentry::middleware::{DecisionKind::*, HumanInTheLoop};
use agentry::persist::{Checkpointer, PersistError, SqliteCheckpointer};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::json;

/// Charge the card.
///
/// # Arguments
/// * `amount` - Euros.
#[tool]
async fn charge(amount: u32) -> String {
    format!("charged {amount}")
}

/// You run a shop.
#[agent(tools(charge))]
struct Cashier;

fn is_corrupt_status(err: &ThreadError) -> bool {
    matches!(
        err,
        ThreadError::Persist(PersistError::Corrupt {
            thread_id: Some(thread),
            what: "run status",
            ..
        }) if thread == "p"
    )
}

#[tokio::test]
async fn a_paused_thread_whose_status_does_not_decode_refuses_a_new_run() {
    let dir = tempfile::tempdir().unwrap();
    let cp = Arc::new(
        SqliteCheckpointer::open(dir.path().join("t.db"))
            .await
            .unwrap(),
    );
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("charge", json!({"amount": 5})),
        Turn::text("A new run went on over the pause."),
    ]));
    let agent = Cashier::builder(Arc::clone(&model))
        .shared_checkpointer(cp.clone())
        .middleware(HumanInTheLoop::new().review_tool::<charge>(Approve | Reject))
        .build();
    let outcome = agent
        .thread("p")
        .run_or_pause("Charge 5", ())
        .await
        .unwrap();
    assert!(matches!(outcome, Outcome::Paused(_)));

    // The status is damaged in the database (here: another casing of "paused").
    let changed = sqlx::query(
        "UPDATE agent_checkpoints SET body = json_set(body, '$.counters.status', 'Paused')
         WHERE thread_id = 'p'
           AND step = (SELECT max(step) FROM agent_checkpoints WHERE thread_id = 'p')",
    )
    .execute(cp.pool())
    .await
    .unwrap()
    .rows_affected();
    assert_eq!(changed, 1);
    let steps = cp.history("p", 100).await.unwrap().len();

    let thread = agent.thread("p");
    let err = thread.status().await.unwrap_err();
    assert!(is_corrupt_status(&err), "{err:?}");
    assert!(err.to_string().contains("thread `p`"), "{err}");
    assert!(err.to_string().contains("run status"), "{err}");
    // serde's error is kept as the cause.
    let source = err.source().expect("a source");
    assert!(
        source.downcast_ref::<serde_json::Error>().is_some(),
        "{source:?}"
    );

    let err = thread.run("Something else", ()).await.unwrap_err();
    let RunErrorKind::Thread(kind) = err.kind() else {
        panic!("expected a thread error, got {err:?}");
    };
    assert!(is_corrupt_status(kind), "{kind:?}");
    assert!(thread.pending().await.is_err());
    let err = thread.recover(()).await.unwrap_err();
    assert!(
        matches!(err.kind(), RunErrorKind::Thread(k) if is_corrupt_status(k)),
        "{err:?}"
    );

    // Nothing ran and nothing was written: the pause is still in the thread.
    assert_eq!(model.requests().len(), 1);
    assert_eq!(cp.history("p", 100).await.unwrap().len(), steps);
    assert!(cp.latest("p").await.unwrap().unwrap().pending.is_some());
}

/// What other writers leave (no counters, or format 1's `{"turns": n}`) still reads as idle.
#[tokio::test]
async fn counters_without_a_status_read_as_an_idle_thread() {
    use agentry::agent::ThreadStatus;
    use agentry::persist::CheckpointWrite;

    let dir = tempfile::tempdir().unwrap();
    let cp = Arc::new(
        SqliteCheckpointer::open(dir.path().join("t.db"))
            .await
            .unwrap(),
    );
    let state = serde_json::Value::Null;
    cp.put(CheckpointWrite::first("plain", &[], &state))
        .await
        .unwrap();
    let turns = json!({"turns": 2});
    cp.put(CheckpointWrite::first("v1", &[], &state).counters(&turns))
        .await
        .unwrap();
    let agent = Cashier::builder(ScriptedModel::new([Turn::text("x")]))
        .shared_checkpointer(cp)
        .build();
    for thread in ["plain", "v1"] {
        let status = agent.thread(thread).status().await.unwrap();
        assert_eq!(status, ThreadStatus::Idle, "{thread}");
    }
}
