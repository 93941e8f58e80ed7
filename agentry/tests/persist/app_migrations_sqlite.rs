//! An application's own sqlx migrations and ours on one SQLite file, in both orders: both
//! succeed, and both work afterwards (our versions are in our own table, not sqlx's).

use agentry::Message;
use agentry::persist::{CheckpointWrite, Checkpointer, PersistError, SqliteCheckpointer, migrate};
use agentry::store::SqliteStore;
use serde_json::json;
use sqlx::SqlitePool;

use super::app_schema::{OUR_VERSIONS, app_migrations, app_migrator};

async fn pool(path: &std::path::Path) -> SqlitePool {
    SqlitePool::connect(&format!("sqlite://{}?mode=rwc", path.display()))
        .await
        .unwrap()
}

/// Our checkpointer writes and reads a thread.
async fn ours_work(cp: &SqliteCheckpointer, thread: &str) {
    let msg = [Message::user("hello")];
    cp.put(CheckpointWrite::first(thread, &msg, &json!({"n": 1})))
        .await
        .unwrap();
    assert_eq!(cp.latest(thread).await.unwrap().unwrap().messages, msg);
}

/// The application's tables take rows.
async fn theirs_work(pool: &SqlitePool) {
    sqlx::query("INSERT INTO app_users (name) VALUES ('ada')")
        .execute(pool)
        .await
        .unwrap();
    sqlx::query("INSERT INTO app_orders (user_id, total) VALUES (1, 5)")
        .execute(pool)
        .await
        .unwrap();
}

pub async fn versions(pool: &SqlitePool) -> Vec<i64> {
    sqlx::query_scalar("SELECT version FROM agentry_schema_versions ORDER BY version")
        .fetch_all(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn ours_first_then_the_applications_migrator() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.db");
    let cp = SqliteCheckpointer::open(&path).await.unwrap();
    ours_work(&cp, "before").await;

    let app = dir.path().join("migrations");
    app_migrations(&app, 2);
    let pool = pool(&path).await;
    // sqlx's migrator finds no version it does not know (ours are in our table).
    app_migrator(&app).await.run(&pool).await.unwrap();
    theirs_work(&pool).await;
    // A later release of the application adds a migration.
    app_migrations(&app, 3);
    app_migrator(&app).await.run(&pool).await.unwrap();

    // Ours open again (the file holds our tables, so no opt-in is needed) and work.
    let cp = SqliteCheckpointer::open(&path).await.unwrap();
    ours_work(&cp, "after").await;
    SqliteStore::open(&path).await.unwrap();
    assert_eq!(versions(&pool).await, OUR_VERSIONS);
    let theirs: i64 = sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(
        theirs, 3,
        "only the application's versions are in sqlx's table"
    );
}

#[tokio::test]
async fn the_applications_migrator_first_then_ours() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.db");
    let app = dir.path().join("migrations");
    app_migrations(&app, 2);
    let pool = pool(&path).await;
    app_migrator(&app).await.run(&pool).await.unwrap();
    theirs_work(&pool).await;

    // Adding our tables to an application's database is asked for, not done silently...
    let err = SqliteCheckpointer::open(&path).await.unwrap_err();
    let PersistError::ForeignTables { path: p, tables } = &err else {
        panic!("expected ForeignTables, got {err:?}");
    };
    assert_eq!(p, &path);
    assert_eq!(tables, &["app_orders", "app_users"]);
    assert!(err.to_string().contains("open_shared"), "{err}");
    assert!(err.to_string().contains("migrate(&pool)"), "{err}");
    let err = SqliteStore::open(&path).await.unwrap_err();
    assert!(err.to_string().contains("open_shared"), "{err}");
    assert_eq!(
        sqlx::query_scalar::<_, i64>("SELECT count(*) FROM sqlite_master WHERE name LIKE 'agent%'")
            .fetch_one(&pool)
            .await
            .unwrap(),
        0,
        "the refused open added nothing"
    );
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(
        mode, "delete",
        "the refused open left the journal mode as it was"
    );

    // ...with the explicit opener,
    let cp = SqliteCheckpointer::open_shared(&path).await.unwrap();
    ours_work(&cp, "t").await;
    // and the application's migrator still runs, with a new migration of its own.
    app_migrations(&app, 3);
    app_migrator(&app).await.run(&pool).await.unwrap();
    theirs_work(&pool).await;
    ours_work(&SqliteCheckpointer::open(&path).await.unwrap(), "u").await;
}

/// An application that brings its own pool migrates it with `migrate(&pool)`, before or after
/// its own migrator, as often as it likes.
#[tokio::test]
async fn migrate_on_the_applications_pool_in_either_order() {
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("migrations");
    app_migrations(&app, 2);
    for (name, ours_first) in [("a.db", true), ("b.db", false)] {
        let pool = pool(&dir.path().join(name)).await;
        if ours_first {
            migrate(&pool).await.unwrap();
        }
        app_migrator(&app).await.run(&pool).await.unwrap();
        migrate(&pool).await.unwrap();
        migrate(&pool).await.unwrap();
        app_migrator(&app).await.run(&pool).await.unwrap();
        theirs_work(&pool).await;
        ours_work(&SqliteCheckpointer::from_pool(pool.clone()), "t").await;
        assert_eq!(versions(&pool).await, OUR_VERSIONS, "{name}");
    }
}

/// Two processes opening a new file at once: each migration is applied once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_openers_at_once_migrate_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("race.db");
    let (a, b) = tokio::join!(
        SqliteCheckpointer::open(&path),
        SqliteCheckpointer::open(&path)
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    ours_work(&a, "a").await;
    ours_work(&b, "b").await;
    assert_eq!(versions(a.pool()).await, OUR_VERSIONS);
}
