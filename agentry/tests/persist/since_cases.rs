//! The cases of `latest_since` (what an agent's thread cache loads) and `orphans` (what
//! `recover_orphans` looks at), for every checkpointer.

use std::time::{Duration, SystemTime};

use agentry::Message;
use agentry::persist::{CheckpointMeta, CheckpointWrite, Checkpointer};
use serde_json::json;

async fn meta_at(cp: &dyn Checkpointer, thread: &str, step: u64) -> CheckpointMeta {
    cp.history(thread, 100)
        .await
        .unwrap()
        .into_iter()
        .find(|m| m.step == step)
        .expect("the step is in the history")
}

/// Writes a thread of `steps` checkpoints, message `m{i}` added by step `i + 1`.
async fn thread_of(cp: &dyn Checkpointer, thread: &str, steps: u64) {
    let first = [Message::user("m0")];
    cp.put(CheckpointWrite::first(thread, &first, &json!({"n": 0})))
        .await
        .unwrap();
    for step in 1..steps {
        let msg = [Message::assistant(format!("m{step}"))];
        cp.put(CheckpointWrite::next(
            thread,
            step,
            &msg,
            &json!({ "n": step }),
        ))
        .await
        .unwrap();
    }
}

fn texts(messages: &[Message]) -> Vec<String> {
    messages.iter().map(Message::text).collect()
}

pub async fn latest_since_loads_only_newer_messages_and_sees_a_replaced_thread(
    cp: &dyn Checkpointer,
) {
    thread_of(cp, "since", 5).await;
    let at3 = meta_at(cp, "since", 3).await;
    assert_eq!(at3.message_count, 3);
    let newer = cp
        .latest_since(&at3)
        .await
        .unwrap()
        .expect("step 3 is known");
    assert_eq!(newer.step, 5);
    assert_eq!(texts(&newer.messages), ["m3", "m4"]);
    assert_eq!(newer.state, json!({"n": 4}));

    // Nothing newer: the newest checkpoint, without messages.
    let at5 = meta_at(cp, "since", 5).await;
    let same = cp
        .latest_since(&at5)
        .await
        .unwrap()
        .expect("step 5 is known");
    assert_eq!((same.step, same.messages.len()), (5, 0));

    // A thread deleted and written again under the same id is not the one known.
    tokio::time::sleep(Duration::from_millis(5)).await;
    cp.delete_thread("since").await.unwrap();
    assert!(cp.latest_since(&at5).await.unwrap().is_none());
    thread_of(cp, "since", 6).await;
    assert!(cp.latest_since(&at3).await.unwrap().is_none());
    assert!(cp.latest_since(&at5).await.unwrap().is_none());
}

pub async fn orphans_are_threads_left_running_and_not_written_since(cp: &dyn Checkpointer) {
    let m = [Message::user("go")];
    let running = json!({"status": "running", "run_start": 0});
    let idle = json!({"status": "idle", "run_start": 0});
    for (thread, counters) in [("o-run", &running), ("o-idle", &idle)] {
        cp.put(CheckpointWrite::first(thread, &m, &json!({})).counters(counters))
            .await
            .unwrap();
    }
    let soon = SystemTime::now() + Duration::from_secs(1);
    let found = cp.orphans(soon, 10).await.unwrap();
    let ids: Vec<&str> = found.iter().map(|t| t.thread_id.as_str()).collect();
    assert_eq!(ids, ["o-run"]);
    // Written after `before`: not (yet) an orphan.
    let past = SystemTime::now() - Duration::from_secs(3600);
    assert!(cp.orphans(past, 10).await.unwrap().is_empty());
    assert!(cp.orphans(soon, 0).await.unwrap().is_empty());
}
