//! The cases every checkpointer must pass.

use std::collections::HashSet;
use std::time::Duration;

use agentry::persist::{CheckpointRef, CheckpointWrite, Checkpointer, PersistError};
use agentry::{Message, ToolCall, Usage};
use serde_json::{Value, json};

fn usage(requests: u64) -> Usage {
    Usage {
        input_tokens: 10 * requests,
        output_tokens: 3 * requests,
        requests,
        ..Usage::default()
    }
}

/// Writes `steps` checkpoints of one message each (after a first one with one message).
async fn thread_of(cp: &dyn Checkpointer, thread: &str, steps: u64) {
    let state = json!({"n": 0});
    let first = [Message::user("m0")];
    cp.put(CheckpointWrite::first(thread, &first, &state))
        .await
        .unwrap();
    for step in 1..steps {
        let msg = [Message::assistant(format!("m{step}"))];
        let state = json!({ "n": step });
        cp.put(CheckpointWrite::next(thread, step, &msg, &state))
            .await
            .unwrap();
    }
}

pub async fn first_and_next_checkpoints_round_trip_every_field(cp: &dyn Checkpointer) {
    assert!(cp.latest("t1").await.unwrap().is_none());
    let state1 = json!({"hotels": []});
    let first = [Message::system("be brief"), Message::user("Paris?")];
    let meta = cp
        .put(CheckpointWrite::first("t1", &first, &state1).usage(usage(0)))
        .await
        .unwrap();
    assert_eq!((meta.step, meta.message_count, meta.parent), (1, 2, None));

    let state2 = json!({"hotels": ["Ritz"]});
    let counters = json!({"turns": 1, "retries": 0});
    let pending = json!({"calls": [{"id": "c1", "name": "book"}]});
    let added = [
        Message::assistant_tool_calls(vec![ToolCall::new("c1", "book", r#"{"city":"Paris"}"#)]),
        Message::tool_result("c1", "book", "booked"),
    ];
    let meta = cp
        .put(
            CheckpointWrite::next("t1", 1, &added, &state2)
                .usage(usage(1))
                .counters(&counters)
                .pending(&pending),
        )
        .await
        .unwrap();
    assert_eq!(meta.step, 2);
    assert_eq!(meta.message_count, 4);
    assert_eq!(meta.parent, Some(CheckpointRef::new("t1", 1)));

    let latest = cp.latest("t1").await.unwrap().expect("a checkpoint");
    assert_eq!(latest.thread_id, "t1");
    assert_eq!(latest.step, 2);
    assert_eq!(latest.parent, Some(CheckpointRef::new("t1", 1)));
    assert_eq!(latest.format_version, agentry::persist::FORMAT_VERSION);
    let mut all = first.to_vec();
    all.extend(added.iter().cloned());
    assert_eq!(latest.messages, all);
    assert_eq!(latest.state, state2);
    assert_eq!(latest.usage, usage(1));
    assert_eq!(latest.counters, counters);
    assert_eq!(latest.pending, Some(pending));
    assert_eq!(latest.reference(), CheckpointRef::new("t1", 2));
    let round_trip = agentry::persist::Checkpoint::from_json(&latest.to_json()).unwrap();
    assert_eq!(round_trip.messages, latest.messages);
    assert_eq!(round_trip.pending, latest.pending);
}

pub async fn get_returns_the_messages_of_that_step(cp: &dyn Checkpointer) {
    thread_of(cp, "t", 5).await;
    let third = cp.get("t", 3).await.unwrap().expect("step 3");
    assert_eq!(third.step, 3);
    assert_eq!(third.state, json!({"n": 2}));
    let texts: Vec<String> = third.messages.iter().map(Message::text).collect();
    assert_eq!(texts, ["m0", "m1", "m2"]);
    assert_eq!(third.pending, None);
    assert!(cp.get("t", 6).await.unwrap().is_none());
    assert!(cp.get("nope", 1).await.unwrap().is_none());
}

pub async fn history_is_newest_first_and_limited(cp: &dyn Checkpointer) {
    thread_of(cp, "h", 4).await;
    let history = cp.history("h", 10).await.unwrap();
    let steps: Vec<u64> = history.iter().map(|m| m.step).collect();
    assert_eq!(steps, [4, 3, 2, 1]);
    let counts: Vec<u64> = history.iter().map(|m| m.message_count).collect();
    assert_eq!(counts, [4, 3, 2, 1]);
    assert_eq!(history[0].parent, Some(CheckpointRef::new("h", 3)));
    assert_eq!(history[3].parent, None);
    assert_eq!(cp.history("h", 2).await.unwrap().len(), 2);
    assert!(cp.history("other", 10).await.unwrap().is_empty());
}

pub async fn a_stale_writer_gets_a_conflict_and_changes_nothing(cp: &dyn Checkpointer) {
    thread_of(cp, "c", 2).await;
    let state = json!({"winner": true});
    let msg = [Message::assistant("winner")];
    cp.put(CheckpointWrite::next("c", 2, &msg, &state))
        .await
        .unwrap();
    // A second writer that also read step 2.
    let loser = [Message::assistant("loser")];
    let err = cp
        .put(CheckpointWrite::next("c", 2, &loser, &json!({})))
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            PersistError::Conflict { thread_id, expected: Some(2), found: Some(3) } if thread_id == "c"
        ),
        "{err:?}"
    );
    // A first checkpoint for a thread that exists.
    let err = cp
        .put(CheckpointWrite::first("c", &loser, &json!({})))
        .await
        .unwrap_err();
    assert!(
        matches!(err, PersistError::Conflict { found: Some(3), .. }),
        "{err:?}"
    );
    // A next checkpoint for a thread that does not exist.
    let err = cp
        .put(CheckpointWrite::next("ghost", 1, &loser, &json!({})))
        .await
        .unwrap_err();
    assert!(
        matches!(err, PersistError::Conflict { found: None, .. }),
        "{err:?}"
    );
    assert!(cp.latest("ghost").await.unwrap().is_none());

    let latest = cp.latest("c").await.unwrap().unwrap();
    assert_eq!(latest.step, 3);
    assert_eq!(latest.state, state);
    let texts: Vec<String> = latest.messages.iter().map(Message::text).collect();
    assert_eq!(texts, ["m0", "m1", "winner"], "the loser's message leaked");
}

pub async fn threads_are_listed_and_deleted(cp: &dyn Checkpointer) {
    assert!(cp.threads(10).await.unwrap().is_empty());
    thread_of(cp, "a", 1).await;
    thread_of(cp, "b", 3).await;
    let threads = cp.threads(10).await.unwrap();
    let ids: HashSet<&str> = threads.iter().map(|t| t.thread_id.as_str()).collect();
    assert_eq!(ids, HashSet::from(["a", "b"]));
    let b = threads.iter().find(|t| t.thread_id == "b").unwrap();
    assert_eq!(
        (b.latest_step, b.message_count, b.forked_from.clone()),
        (3, 3, None)
    );
    assert!(b.updated_at >= b.created_at);
    assert_eq!(cp.threads(1).await.unwrap().len(), 1);

    assert!(cp.delete_thread("b").await.unwrap());
    assert!(!cp.delete_thread("b").await.unwrap());
    assert!(cp.latest("b").await.unwrap().is_none());
    assert!(cp.history("b", 10).await.unwrap().is_empty());
    let ids: Vec<String> = cp
        .threads(10)
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.thread_id)
        .collect();
    assert_eq!(ids, ["a"]);
    // The id can be used again, from scratch.
    thread_of(cp, "b", 1).await;
    let again = cp.latest("b").await.unwrap().unwrap();
    assert_eq!((again.step, again.messages.len()), (1, 1));
}

pub async fn fork_starts_a_new_thread_from_an_old_checkpoint(cp: &dyn Checkpointer) {
    thread_of(cp, "main", 4).await;
    let from = CheckpointRef::new("main", 2);
    let meta = cp.fork(&from, "branch").await.unwrap();
    assert_eq!((meta.step, meta.message_count), (1, 2));
    assert_eq!(meta.parent, Some(from.clone()));

    let branch = cp.latest("branch").await.unwrap().unwrap();
    assert_eq!(branch.step, 1);
    assert_eq!(branch.parent, Some(from.clone()));
    assert_eq!(branch.state, json!({"n": 1}));
    let texts: Vec<String> = branch.messages.iter().map(Message::text).collect();
    assert_eq!(texts, ["m0", "m1"]);

    // Both go on independently.
    let alt = [Message::assistant("alternative")];
    cp.put(CheckpointWrite::next("branch", 1, &alt, &json!({})))
        .await
        .unwrap();
    let texts: Vec<String> = cp
        .latest("branch")
        .await
        .unwrap()
        .unwrap()
        .messages
        .iter()
        .map(Message::text)
        .collect();
    assert_eq!(texts, ["m0", "m1", "alternative"]);
    let main = cp.latest("main").await.unwrap().unwrap();
    assert_eq!((main.step, main.messages.len()), (4, 4));

    let info = cp
        .threads(10)
        .await
        .unwrap()
        .into_iter()
        .find(|t| t.thread_id == "branch")
        .unwrap();
    assert_eq!(info.forked_from, Some(from.clone()));

    let err = cp.fork(&from, "branch").await.unwrap_err();
    assert!(matches!(err, PersistError::Conflict { .. }), "{err:?}");
    let err = cp
        .fork(&CheckpointRef::new("main", 9), "other")
        .await
        .unwrap_err();
    assert!(
        matches!(&err, PersistError::NotFound { thread_id, step: 9 } if thread_id == "main"),
        "{err:?}"
    );
    assert!(cp.latest("other").await.unwrap().is_none());
}

const LONG: Duration = Duration::from_secs(60);

pub async fn a_lease_is_exclusive_until_released(cp: &dyn Checkpointer) {
    let a = cp
        .acquire_lease("l", "worker-a", LONG)
        .await
        .unwrap()
        .expect("free");
    assert_eq!((a.thread_id.as_str(), a.worker.as_str()), ("l", "worker-a"));
    assert!(!a.is_expired());
    assert!(
        cp.acquire_lease("l", "worker-b", LONG)
            .await
            .unwrap()
            .is_none()
    );
    // The holder may acquire again (a restarted worker with the same id); the token moves on.
    let a2 = cp
        .acquire_lease("l", "worker-a", LONG)
        .await
        .unwrap()
        .expect("own");
    assert!(a2.token > a.token);
    let renewed = cp.renew_lease(&a2, LONG).await.unwrap();
    assert_eq!(renewed.token, a2.token);

    // Writes carrying the lease go through.
    let msg = [Message::user("hi")];
    cp.put(CheckpointWrite::first("l", &msg, &json!({})).lease(&a2))
        .await
        .unwrap();

    cp.release_lease(&a2).await.unwrap();
    let err = cp.renew_lease(&a2, LONG).await.unwrap_err();
    assert!(matches!(err, PersistError::LeaseLost { .. }), "{err:?}");
    let b = cp
        .acquire_lease("l", "worker-b", LONG)
        .await
        .unwrap()
        .expect("released");
    assert!(b.token > a2.token);
    // Other threads are independent.
    assert!(
        cp.acquire_lease("m", "worker-a", LONG)
            .await
            .unwrap()
            .is_some()
    );
}

pub async fn an_expired_lease_is_taken_over_and_fences_the_old_holder(cp: &dyn Checkpointer) {
    let msg = [Message::user("start")];
    cp.put(CheckpointWrite::first("x", &msg, &json!({})))
        .await
        .unwrap();
    let a = cp
        .acquire_lease("x", "worker-a", Duration::from_millis(50))
        .await
        .unwrap()
        .expect("free");
    // Only the direction that time guarantees is asserted: after the TTL, the lease is gone.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(a.is_expired());
    let b = cp
        .acquire_lease("x", "worker-b", LONG)
        .await
        .unwrap()
        .expect("expired, so taken over");
    assert!(b.token > a.token);

    // The old holder is fenced off: no renewal, no write.
    let err = cp.renew_lease(&a, LONG).await.unwrap_err();
    assert!(matches!(err, PersistError::LeaseLost { .. }), "{err:?}");
    let zombie = [Message::assistant("zombie")];
    let err = cp
        .put(CheckpointWrite::next("x", 1, &zombie, &json!({})).lease(&a))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, PersistError::LeaseLost { thread_id } if thread_id == "x"),
        "{err:?}"
    );
    // Releasing a lease that was taken over does nothing to the new holder.
    cp.release_lease(&a).await.unwrap();
    assert!(
        cp.acquire_lease("x", "worker-c", LONG)
            .await
            .unwrap()
            .is_none()
    );

    let fresh = [Message::assistant("fresh")];
    cp.put(CheckpointWrite::next("x", 1, &fresh, &json!({})).lease(&b))
        .await
        .unwrap();
    let texts: Vec<String> = cp
        .latest("x")
        .await
        .unwrap()
        .unwrap()
        .messages
        .iter()
        .map(Message::text)
        .collect();
    assert_eq!(texts, ["start", "fresh"]);
}

pub async fn bad_input_is_a_typed_error(cp: &dyn Checkpointer) {
    let err = cp
        .put(CheckpointWrite::first("", &[], &Value::Null))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            PersistError::Invalid {
                what: "thread id",
                ..
            }
        ),
        "{err:?}"
    );
    let long = "x".repeat(513);
    let err = cp.acquire_lease(&long, "w", LONG).await.unwrap_err();
    assert!(matches!(err, PersistError::Invalid { .. }), "{err:?}");
    let err = cp
        .acquire_lease("t", "w", Duration::ZERO)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            PersistError::Invalid {
                what: "lease ttl",
                ..
            }
        ),
        "{err:?}"
    );
    let lease = cp.acquire_lease("t", "w", LONG).await.unwrap().unwrap();
    let err = cp
        .put(CheckpointWrite::first("other", &[], &Value::Null).lease(&lease))
        .await
        .unwrap_err();
    assert!(
        matches!(err, PersistError::Invalid { what: "lease", .. }),
        "{err:?}"
    );
    let err = cp.fork(&CheckpointRef::new("t", 1), "").await.unwrap_err();
    assert!(matches!(err, PersistError::Invalid { .. }), "{err:?}");
}

pub async fn a_long_thread_keeps_every_message_in_order(cp: &dyn Checkpointer) {
    // Steps that add no message, one message and many messages, with odd content.
    let state = json!({});
    let first: Vec<Message> = (0..300)
        .map(|i| Message::user(format!("u{i} \"quoted\" ✓")))
        .collect();
    cp.put(CheckpointWrite::first("long", &first, &state))
        .await
        .unwrap();
    cp.put(CheckpointWrite::next("long", 1, &[], &state))
        .await
        .unwrap();
    let more: Vec<Message> = (300..450)
        .map(|i| Message::assistant(format!("a{i}")))
        .collect();
    cp.put(CheckpointWrite::next("long", 2, &more, &state))
        .await
        .unwrap();
    let latest = cp.latest("long").await.unwrap().unwrap();
    assert_eq!(latest.messages.len(), 450);
    let mut expected = first.clone();
    expected.extend(more);
    assert_eq!(latest.messages, expected);
    assert_eq!(cp.get("long", 2).await.unwrap().unwrap().messages, first);
}
