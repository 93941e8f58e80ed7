//! A checkpoint written in format version 1 (committed as a fixture) is read by today's reader.

use agentry::Message;
use agentry::persist::{
    Checkpoint, CheckpointRef, Checkpointer, FORMAT_VERSION, SqliteCheckpointer,
};
use serde_json::{Value, json};

const V1: &str = include_str!("../fixtures/checkpoint_v1.json");

#[test]
fn a_version_1_document_is_upgraded_on_read() {
    assert_eq!(
        FORMAT_VERSION, 2,
        "add a fixture for the previous version when bumping"
    );
    let doc: Value = serde_json::from_str(V1).unwrap();
    assert_eq!(doc["format_version"], 1);
    let cp = Checkpoint::from_json(&doc).unwrap();
    assert_eq!(cp.format_version, 1);
    assert_eq!((cp.thread_id.as_str(), cp.step), ("trip-7", 3));
    assert_eq!(cp.messages.len(), 4);
    assert_eq!(cp.messages[0], Message::system("You are a travel planner."));
    assert_eq!(cp.state, json!({"hotels": ["Le Meurice"]}));
    assert_eq!(cp.usage.requests, 2);
    // The upgrade path: v1's `turns` becomes the counters object, and v1 had no pauses.
    assert_eq!(cp.counters, json!({"turns": 2}));
    assert_eq!(cp.pending, None);
    assert_eq!(cp.parent, Some(CheckpointRef::new("trip-7", 2)));
    // Written back, it is in the current format.
    assert_eq!(cp.to_json()["format_version"], FORMAT_VERSION);
}

/// A database row whose body is in format 1 (as an older release wrote it) loads through the
/// SQLite backend.
#[tokio::test]
async fn a_version_1_row_in_sqlite_loads_through_the_current_reader() {
    let doc: Value = serde_json::from_str(V1).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cp = SqliteCheckpointer::open(dir.path().join("old.db"))
        .await
        .unwrap();
    let body = json!({"state": doc["state"], "usage": doc["usage"], "turns": doc["turns"]});
    let mut tx = cp.pool().begin().await.unwrap();
    sqlx::query("INSERT INTO agent_threads VALUES ('old', 1, 4, NULL, NULL, 0, 0)")
        .execute(&mut *tx)
        .await
        .unwrap();
    for (seq, message) in doc["messages"].as_array().unwrap().iter().enumerate() {
        sqlx::query("INSERT INTO agent_messages VALUES ('old', $1, $2)")
            .bind(seq as i64)
            .bind(message.to_string())
            .execute(&mut *tx)
            .await
            .unwrap();
    }
    sqlx::query("INSERT INTO agent_checkpoints VALUES ('old', 1, NULL, NULL, 1, 4, $1, 0)")
        .bind(body.to_string())
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();

    let latest = cp.latest("old").await.unwrap().unwrap();
    assert_eq!(latest.format_version, 1);
    assert_eq!(latest.counters, json!({"turns": 2}));
    assert_eq!(latest.messages.len(), 4);
    // And the thread goes on in the current format.
    let next = [Message::user("and a third day?")];
    let meta = cp
        .put(agentry::persist::CheckpointWrite::next(
            "old",
            1,
            &next,
            &latest.state,
        ))
        .await
        .unwrap();
    assert_eq!(
        (meta.format_version, meta.message_count),
        (FORMAT_VERSION, 5)
    );
}
