//! Many workers on one Postgres database: one thread is advanced by one worker at a time.

use std::collections::HashSet;
use std::time::Duration;

use agentry::Message;
use agentry::persist::{CheckpointWrite, Checkpointer, PersistError, PostgresCheckpointer};
use serde_json::json;

use super::backends::postgres_url;

const TTL: Duration = Duration::from_secs(30);

/// Each worker has its own connection pool, as separate processes would.
async fn workers(n: usize) -> Vec<PostgresCheckpointer> {
    let url = postgres_url().await;
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(PostgresCheckpointer::connect(&url).await.unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_workers_acquiring_one_thread_at_once_get_it_once() {
    let w = workers(2).await;
    for round in 0..20 {
        let thread = format!("race-{round}");
        let (a, b) = tokio::join!(
            w[0].acquire_lease(&thread, "a", TTL),
            w[1].acquire_lease(&thread, "b", TTL)
        );
        let won = [a.unwrap(), b.unwrap()];
        let winners = won.iter().filter(|l| l.is_some()).count();
        assert_eq!(winners, 1, "round {round}: {won:?}");
    }
}

/// Two workers each advance the same thread 25 times, taking the lease for every step: every
/// step is written exactly once, none is lost, and the history has no gap.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_workers_racing_on_one_thread_advance_it_one_at_a_time() {
    let w = workers(2).await;
    let first = [Message::user("start")];
    w[0].put(CheckpointWrite::first("shared", &first, &json!({"n": 0})))
        .await
        .unwrap();
    let steps_each = 25;
    let run = |cp: PostgresCheckpointer, name: &'static str| async move {
        let mut done = 0;
        let mut waited = 0u32;
        while done < steps_each {
            let Some(lease) = cp.acquire_lease("shared", name, TTL).await.unwrap() else {
                waited += 1;
                assert!(waited < 20_000, "{name} never got the lease");
                tokio::task::yield_now().await;
                continue;
            };
            let latest = cp.latest("shared").await.unwrap().unwrap();
            let n = latest.state["n"].as_u64().unwrap();
            let msg = [Message::assistant(format!("{name}-{done}"))];
            cp.put(
                CheckpointWrite::next("shared", latest.step, &msg, &json!({ "n": n + 1 }))
                    .lease(&lease),
            )
            .await
            .unwrap_or_else(|e| panic!("{name} holds the lease, its write must go through: {e}"));
            cp.release_lease(&lease).await.unwrap();
            done += 1;
        }
    };
    let mut w = w.into_iter();
    let (a, b) = (w.next().unwrap(), w.next().unwrap());
    let reader = a.clone();
    let (ra, rb) = tokio::join!(tokio::spawn(run(a, "a")), tokio::spawn(run(b, "b")));
    ra.unwrap();
    rb.unwrap();

    let latest = reader.latest("shared").await.unwrap().unwrap();
    assert_eq!(latest.step, 1 + 2 * steps_each);
    assert_eq!(latest.state, json!({ "n": 2 * steps_each }));
    let texts: Vec<String> = latest.messages.iter().skip(1).map(Message::text).collect();
    let unique: HashSet<&String> = texts.iter().collect();
    assert_eq!(texts.len(), 2 * steps_each as usize);
    assert_eq!(
        unique.len(),
        texts.len(),
        "a step was written twice: {texts:?}"
    );
    for name in ["a", "b"] {
        let mine: Vec<&String> = texts.iter().filter(|t| t.starts_with(name)).collect();
        let expected: Vec<String> = (0..steps_each).map(|i| format!("{name}-{i}")).collect();
        assert_eq!(
            mine,
            expected.iter().collect::<Vec<_>>(),
            "{name}'s steps out of order"
        );
    }
    let steps: Vec<u64> = reader
        .history("shared", 100)
        .await
        .unwrap()
        .iter()
        .map(|m| m.step)
        .collect();
    assert_eq!(steps, (1..=1 + 2 * steps_each).rev().collect::<Vec<_>>());
}

/// A worker that stopped renewing (as if killed) loses the thread after the TTL; the worker
/// that takes over continues, and the old one can no longer write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_workers_thread_is_taken_over_after_the_lease() {
    let w = workers(2).await;
    let dead = w[0]
        .acquire_lease("job", "dead", Duration::from_millis(100))
        .await
        .unwrap()
        .unwrap();
    let first = [Message::user("go")];
    w[0].put(CheckpointWrite::first("job", &first, &json!({})).lease(&dead))
        .await
        .unwrap();
    assert!(
        w[1].acquire_lease("job", "alive", TTL)
            .await
            .unwrap()
            .is_none()
    );
    let alive = loop {
        if let Some(l) = w[1].acquire_lease("job", "alive", TTL).await.unwrap() {
            break l;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let latest = w[1].latest("job").await.unwrap().unwrap();
    let next = [Message::assistant("continued")];
    w[1].put(CheckpointWrite::next("job", latest.step, &next, &json!({})).lease(&alive))
        .await
        .unwrap();
    let late = [Message::assistant("late")];
    let err = w[0]
        .put(CheckpointWrite::next("job", 2, &late, &json!({})).lease(&dead))
        .await
        .unwrap_err();
    assert!(matches!(err, PersistError::LeaseLost { .. }), "{err:?}");
}
