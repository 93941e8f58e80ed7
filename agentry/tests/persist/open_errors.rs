//! Opening a database that is not ours: a file that is not a SQLite database, and a database
//! where a table of ours exists with another shape, are typed errors that keep their cause.

use std::error::Error as _;

use agentry::persist::{PersistError, PostgresCheckpointer, SqliteCheckpointer};
use agentry::store::{PostgresStore, SqliteStore};
use sqlx::Connection;

use super::backends::postgres_url;

/// A table named like ours, made by another program.
const FOREIGN_CHECKPOINTS: &str =
    "CREATE TABLE agent_checkpoints (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)";

#[tokio::test]
async fn a_file_of_random_bytes_is_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("random.db");
    let bytes: Vec<u8> = (0..8192u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&path, &bytes).unwrap();

    let err = SqliteCheckpointer::open(&path).await.unwrap_err();
    let PersistError::NotADatabase { path: reported, .. } = &err else {
        panic!("expected NotADatabase, got {err:?}");
    };
    assert_eq!(reported, &path);
    assert!(
        err.to_string().contains("is not a SQLite database"),
        "{err}"
    );
    // The cause is SQLite's own error, as a source, not a string.
    let source = err.source().expect("a source");
    assert!(source.to_string().contains("26"), "{source}");

    // The store opens the same way and says the same, the checkpointer's typed error as its
    // source.
    let err = SqliteStore::open(&path).await.unwrap_err();
    assert!(
        err.to_string().contains("is not a SQLite database"),
        "{err}"
    );
    assert!(
        matches!(
            err.source().and_then(|e| e.downcast_ref::<PersistError>()),
            Some(PersistError::NotADatabase { .. })
        ),
        "{err:?}"
    );
    // Nothing was written over the file.
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
}

#[tokio::test]
async fn a_sqlite_table_of_ours_with_other_columns_is_a_schema_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("theirs.db");
    let url = format!("sqlite://{}?mode=rwc", path.display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    sqlx::query(FOREIGN_CHECKPOINTS)
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();

    let err = SqliteCheckpointer::open(&path).await.unwrap_err();
    let PersistError::SchemaMismatch { table, missing, .. } = &err else {
        panic!("expected SchemaMismatch, got {err:?}");
    };
    assert_eq!(table, "agent_checkpoints");
    assert!(missing.iter().any(|c| c == "thread_id"), "{missing:?}");
    assert!(err.to_string().contains("agent_checkpoints"), "{err}");
    // The migration's failure is kept as the cause.
    assert!(err.source().is_some());

    let err = SqliteStore::open(&path).await.unwrap_err();
    assert!(err.to_string().contains("agent_checkpoints"), "{err}");
}

#[tokio::test]
async fn our_own_database_opens_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ours.db");
    drop(SqliteCheckpointer::open(&path).await.unwrap());
    drop(SqliteStore::open(&path).await.unwrap());
    SqliteCheckpointer::open(&path).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_table_of_ours_with_other_columns_is_a_schema_mismatch() {
    let url = postgres_url().await;
    let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
    sqlx::query(FOREIGN_CHECKPOINTS)
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();

    let err = PostgresCheckpointer::connect(&url).await.unwrap_err();
    let PersistError::SchemaMismatch { table, missing, .. } = &err else {
        panic!("expected SchemaMismatch, got {err:?}");
    };
    assert_eq!(table, "agent_checkpoints");
    assert!(missing.iter().any(|c| c == "step"), "{missing:?}");
    assert!(err.source().is_some());

    let err = PostgresStore::connect(&url).await.unwrap_err();
    assert!(err.to_string().contains("agent_checkpoints"), "{err}");
}
