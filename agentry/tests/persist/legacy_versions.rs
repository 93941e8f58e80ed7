//! A database created by an earlier release (our versions in sqlx's `_sqlx_migrations`) still
//! opens, with its threads: the versions move to our table, so the application's own
//! migrator no longer meets versions it does not know.

use agentry::Message;
use agentry::persist::{CheckpointWrite, Checkpointer, PostgresCheckpointer, SqliteCheckpointer};
use serde_json::json;
use sqlx::{PgPool, SqlitePool};

use super::app_schema::{OUR_VERSIONS, app_migrations, app_migrator, legacy_migrator};
use super::backends::postgres_url;

const SQLX_ROWS: &str = "SELECT version FROM _sqlx_migrations ORDER BY version";

#[tokio::test]
async fn a_sqlite_file_of_the_previous_release_opens_and_its_versions_move() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    let pool = SqlitePool::connect(&format!("sqlite://{}?mode=rwc", path.display()))
        .await
        .unwrap();
    legacy_migrator("sqlite").run(&pool).await.unwrap();
    let msg = [Message::user("from the old release")];
    SqliteCheckpointer::from_pool(pool.clone())
        .put(CheckpointWrite::first("old", &msg, &json!({})))
        .await
        .unwrap();
    // As the previous release left it, an application's own migrator is refused.
    let app = dir.path().join("migrations");
    app_migrations(&app, 2);
    let err = app_migrator(&app).await.run(&pool).await.unwrap_err();
    assert!(
        matches!(err, sqlx::migrate::MigrateError::VersionMissing(v) if OUR_VERSIONS.contains(&v)),
        "{err:?}"
    );

    let cp = SqliteCheckpointer::open(&path).await.unwrap();
    assert_eq!(cp.latest("old").await.unwrap().unwrap().messages, msg);
    let ours: Vec<i64> =
        sqlx::query_scalar("SELECT version FROM agentry_schema_versions ORDER BY version")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(ours, OUR_VERSIONS);
    let left: Vec<i64> = sqlx::query_scalar(SQLX_ROWS)
        .fetch_all(&pool)
        .await
        .unwrap();
    assert!(left.is_empty(), "{left:?}");
    // Opening again changes nothing, and the application's migrator now runs.
    SqliteCheckpointer::open(&path).await.unwrap();
    app_migrator(&app).await.run(&pool).await.unwrap();
    let next = [Message::assistant("and on")];
    cp.put(CheckpointWrite::next("old", 1, &next, &json!({})))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_database_of_the_previous_release_opens_and_its_versions_move() {
    let url = postgres_url().await;
    let pool = PgPool::connect(&url).await.unwrap();
    legacy_migrator("postgres").run(&pool).await.unwrap();
    let msg = [Message::user("from the old release")];
    PostgresCheckpointer::from_pool(pool.clone())
        .put(CheckpointWrite::first("old", &msg, &json!({})))
        .await
        .unwrap();
    // An application that shared the database then ran its migrator with `ignore_missing`.
    let dir = tempfile::tempdir().unwrap();
    app_migrations(dir.path(), 2);
    let mut tolerant = app_migrator(dir.path()).await;
    tolerant.set_ignore_missing(true);
    tolerant.run(&pool).await.unwrap();

    let cp = PostgresCheckpointer::connect(&url).await.unwrap();
    assert_eq!(cp.latest("old").await.unwrap().unwrap().messages, msg);
    let ours: Vec<i64> =
        sqlx::query_scalar("SELECT version FROM agentry_schema_versions ORDER BY version")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(ours, OUR_VERSIONS);
    // Only the application's versions stay in sqlx's table; its default migrator runs.
    let left: Vec<i64> = sqlx::query_scalar(SQLX_ROWS)
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(left, [1, 2]);
    app_migrations(dir.path(), 3);
    app_migrator(dir.path()).await.run(&pool).await.unwrap();
    PostgresCheckpointer::connect(&url).await.unwrap();
}
