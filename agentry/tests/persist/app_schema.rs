//! An application's own sqlx migrations (from .sql files in a directory, as `sqlx::migrate!`
//! reads them), and agentry's migrations applied the way earlier releases applied them (into
//! sqlx's `_sqlx_migrations`), for the tests of sharing a database.

use std::borrow::Cow;
use std::path::Path;

use sqlx::migrate::{Migration, MigrationType, Migrator};

/// Our versions, as recorded by every release (the first two also by the releases that kept
/// them in sqlx's table; the third, the store's embeddings, only in ours).
pub const OUR_VERSIONS: [i64; 3] = [202611230001, 202611230002, 202611260003];

/// The application's migrations directory, with `n` migrations (1: users, 2: orders, 3: an
/// index), in SQL that SQLite and Postgres both take.
pub fn app_migrations(dir: &Path, n: usize) {
    let files = [
        (
            "1_users.sql",
            "CREATE TABLE app_users (id INTEGER PRIMARY KEY, name TEXT NOT NULL);",
        ),
        (
            "2_orders.sql",
            "CREATE TABLE app_orders (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, total INTEGER NOT NULL);",
        ),
        (
            "3_orders_by_user.sql",
            "CREATE INDEX app_orders_user ON app_orders (user_id);",
        ),
    ];
    std::fs::create_dir_all(dir).unwrap();
    for (name, sql) in &files[..n] {
        std::fs::write(dir.join(name), sql).unwrap();
    }
}

/// The application's migrator over `dir`, with sqlx's defaults (a version in the database it
/// does not know is `VersionMissing`).
pub async fn app_migrator(dir: &Path) -> Migrator {
    Migrator::new(dir).await.unwrap()
}

/// Agentry's migrations as releases up to 0.1 ran them: sqlx's migrator, versions in
/// `_sqlx_migrations`.
pub fn legacy_migrator(dialect: &str) -> Migrator {
    let sql = |file: &str| {
        let path = format!("{}/migrations/{dialect}/{file}", env!("CARGO_MANIFEST_DIR"));
        Cow::Owned(std::fs::read_to_string(path).unwrap())
    };
    let migration = |version, description: &'static str, file: &str| {
        Migration::new(
            version,
            Cow::Borrowed(description),
            MigrationType::Simple,
            sql(file),
            false,
        )
    };
    Migrator {
        migrations: Cow::Owned(vec![
            migration(
                OUR_VERSIONS[0],
                "agentry checkpoints",
                "0001_checkpoints.sql",
            ),
            migration(OUR_VERSIONS[1], "agentry store", "0002_store.sql"),
        ]),
        ignore_missing: true,
        ..Migrator::DEFAULT
    }
}
