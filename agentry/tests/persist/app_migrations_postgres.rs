//! An application's own sqlx migrations and ours on one Postgres database, in both orders:
//! both succeed and both work afterwards; several processes migrating at once apply each of
//! our migrations once.

use agentry::Message;
use agentry::persist::{CheckpointWrite, Checkpointer, PostgresCheckpointer, migrate};
use agentry::store::PostgresStore;
use serde_json::json;
use sqlx::PgPool;

use super::app_schema::{OUR_VERSIONS, app_migrations, app_migrator};
use super::backends::postgres_url;

async fn ours_work(cp: &PostgresCheckpointer, thread: &str) {
    let msg = [Message::user("hello")];
    cp.put(CheckpointWrite::first(thread, &msg, &json!({"n": 1})))
        .await
        .unwrap();
    assert_eq!(cp.latest(thread).await.unwrap().unwrap().messages, msg);
}

async fn theirs_work(pool: &PgPool) {
    sqlx::query(
        "INSERT INTO app_users (id, name) VALUES ((SELECT count(*) FROM app_users) + 1, 'ada')",
    )
    .execute(pool)
    .await
    .unwrap();
}

pub async fn versions(pool: &PgPool) -> Vec<i64> {
    sqlx::query_scalar("SELECT version FROM agentry_schema_versions ORDER BY version")
        .fetch_all(pool)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ours_first_then_the_applications_migrator() {
    let url = postgres_url().await;
    let cp = PostgresCheckpointer::connect(&url).await.unwrap();
    ours_work(&cp, "before").await;

    let dir = tempfile::tempdir().unwrap();
    app_migrations(dir.path(), 2);
    let pool = PgPool::connect(&url).await.unwrap();
    app_migrator(dir.path()).await.run(&pool).await.unwrap();
    theirs_work(&pool).await;
    app_migrations(dir.path(), 3);
    app_migrator(dir.path()).await.run(&pool).await.unwrap();

    let cp = PostgresCheckpointer::connect(&url).await.unwrap();
    ours_work(&cp, "after").await;
    PostgresStore::connect(&url).await.unwrap();
    assert_eq!(versions(&pool).await, OUR_VERSIONS);
    theirs_work(&pool).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_applications_migrator_first_then_ours() {
    let url = postgres_url().await;
    let dir = tempfile::tempdir().unwrap();
    app_migrations(dir.path(), 2);
    let pool = PgPool::connect(&url).await.unwrap();
    app_migrator(dir.path()).await.run(&pool).await.unwrap();
    theirs_work(&pool).await;

    // On the application's own pool, then by URL: both work, and again.
    migrate(&pool).await.unwrap();
    migrate(&pool).await.unwrap();
    ours_work(&PostgresCheckpointer::from_pool(pool.clone()), "t").await;
    ours_work(&PostgresCheckpointer::connect(&url).await.unwrap(), "u").await;

    app_migrations(dir.path(), 3);
    app_migrator(dir.path()).await.run(&pool).await.unwrap();
    theirs_work(&pool).await;
    assert_eq!(versions(&pool).await, OUR_VERSIONS);
}

/// Four processes (pools) migrating a new database at once: no error, each version once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_migrators_at_once_migrate_once() {
    let url = postgres_url().await;
    let mut pools = Vec::new();
    for _ in 0..4 {
        pools.push(PgPool::connect(&url).await.unwrap());
    }
    let runs = pools.iter().map(migrate);
    for outcome in futures::future::join_all(runs).await {
        outcome.unwrap();
    }
    assert_eq!(versions(&pools[0]).await, OUR_VERSIONS);
    ours_work(&PostgresCheckpointer::from_pool(pools[0].clone()), "t").await;
}
