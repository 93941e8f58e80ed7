//! What the SQLite and Postgres backends share: the schema migrations (checkpoints and the
//! long-term store are one migration set per database, run with sqlx's migrator).

use std::borrow::Cow;

use sqlx::migrate::{Migration, MigrationType, Migrator};

use super::PersistError;

/// Migration versions are dated so they do not collide with an application's own sqlx
/// migrations in the same database (`YYYYMMDDnnnn`); the migrator ignores versions it does
/// not know.
const CHECKPOINTS: i64 = 202611230001;
const STORE: i64 = 202611230002;

fn migrator(sources: [(i64, &'static str, &'static str); 2]) -> Migrator {
    let migrations = sources
        .into_iter()
        .map(|(version, description, sql)| {
            Migration::new(
                version,
                Cow::Borrowed(description),
                MigrationType::Simple,
                Cow::Borrowed(sql),
                false,
            )
        })
        .collect::<Vec<_>>();
    Migrator {
        migrations: Cow::Owned(migrations),
        ignore_missing: true,
        ..Migrator::DEFAULT
    }
}

/// The SQLite schema.
#[cfg(feature = "sqlite")]
pub(crate) fn sqlite_migrator() -> Migrator {
    migrator([
        (
            CHECKPOINTS,
            "agentry checkpoints",
            include_str!("../../migrations/sqlite/0001_checkpoints.sql"),
        ),
        (
            STORE,
            "agentry store",
            include_str!("../../migrations/sqlite/0002_store.sql"),
        ),
    ])
}

/// The Postgres schema.
#[cfg(feature = "postgres")]
pub(crate) fn postgres_migrator() -> Migrator {
    migrator([
        (
            CHECKPOINTS,
            "agentry checkpoints",
            include_str!("../../migrations/postgres/0001_checkpoints.sql"),
        ),
        (
            STORE,
            "agentry store",
            include_str!("../../migrations/postgres/0002_store.sql"),
        ),
    ])
}

/// Opens (creating when missing) a SQLite database file in WAL mode with
/// `synchronous = NORMAL`, and brings its schema up to date. A file that is not a database
/// and a table of ours with another shape are typed errors (see `schema_shape`).
#[cfg(feature = "sqlite")]
pub(crate) async fn open_sqlite(path: &std::path::Path) -> Result<sqlx::SqlitePool, PersistError> {
    use sqlx::sqlite::{
        SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous,
    };
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(std::time::Duration::from_secs(10));
    let pool = SqlitePoolOptions::new()
        .max_connections(4)
        .connect_with(options)
        .await
        .map_err(|e| super::schema_shape::sqlite_connect_error(path, e))?;
    super::schema_shape::migrate_sqlite(&pool, path).await?;
    Ok(pool)
}

/// Connects to Postgres and brings the schema up to date (a table of ours with another shape
/// is a typed error, see `schema_shape`).
#[cfg(feature = "postgres")]
pub(crate) async fn connect_postgres(url: &str) -> Result<sqlx::PgPool, PersistError> {
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(8)
        .connect(url)
        .await
        .map_err(|e| PersistError::backend("open", e))?;
    super::schema_shape::migrate_postgres(&pool).await?;
    Ok(pool)
}

/// A count or step from the database (never negative in this schema).
pub(crate) fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// A count or step for the database.
pub(crate) fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
