//! What the SQLite and Postgres backends share: opening a database and bringing its schema up
//! to date (checkpoints and the long-term store are one migration set per database, see
//! `schema_versions`).

use super::PersistError;

/// Opens (creating when missing) a SQLite database file in WAL mode with
/// `synchronous = NORMAL`, and brings its schema up to date. A file that is not a database
/// and a table of ours with another shape are typed errors (see `schema_shape`), and so is a
/// file that holds only other programs' tables unless `shared` (see `sqlite_sharing`).
#[cfg(feature = "sqlite")]
pub(crate) async fn open_sqlite(
    path: &std::path::Path,
    shared: bool,
) -> Result<sqlx::SqlitePool, PersistError> {
    use sqlx::sqlite::{
        SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous,
    };
    if !shared && path.exists() {
        // Looked at before the pool's connections switch the file to WAL: a refused file is
        // left as it was.
        super::sqlite_sharing::refuse_foreign(path).await?;
    }
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(super::sqlite_busy::BUSY_TIMEOUT);
    // Another process may be switching the same new file to WAL (see `sqlite_busy`).
    let mut retries = super::sqlite_busy::open_retries();
    let pool = loop {
        let connected = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options.clone())
            .await;
        match connected {
            Err(e) if sqlite_busy(&e) => match retries.next() {
                Some(pause) => tokio::time::sleep(pause).await,
                None => return Err(super::schema_shape::sqlite_connect_error(path, e)),
            },
            result => {
                break result.map_err(|e| super::schema_shape::sqlite_connect_error(path, e))?;
            }
        }
    };
    super::schema_shape::migrate_sqlite(&pool, Some(path)).await?;
    Ok(pool)
}

/// Whether SQLite answered "busy" or "locked" (primary result codes 5 and 6).
#[cfg(feature = "sqlite")]
fn sqlite_busy(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .and_then(|e| e.code())
        .and_then(|code| code.parse::<i32>().ok())
        .is_some_and(|code| matches!(code & 0xff, 5 | 6))
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
