//! Whether a SQLite file may receive our tables: a new or empty file, or one that already has
//! them, yes; a file that holds only another program's tables (an application's database)
//! only when the caller says it is shared (`open_shared`, or `migrate(&pool)` on its own
//! pool), so that pointing agentry at the wrong file does not add tables to it silently.

use std::path::Path;

use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};

use super::PersistError;
use super::schema_shape::is_ours;

/// Refuses with [`PersistError::ForeignTables`] the database file at `path` when it holds
/// tables of another program and none of ours. Reads it over one connection that changes
/// nothing (no journal mode, no table).
pub(crate) async fn refuse_foreign(path: &Path) -> Result<(), PersistError> {
    let connect_error = |e| super::schema_shape::sqlite_connect_error(path, e);
    let mut conn = SqliteConnectOptions::new()
        .filename(path)
        .busy_timeout(super::sqlite_busy::BUSY_TIMEOUT)
        .connect()
        .await
        .map_err(connect_error)?;
    let names: Result<Vec<String>, sqlx::Error> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
         ORDER BY name",
    )
    .fetch_all(&mut conn)
    .await;
    let _ = conn.close().await;
    match foreign(&names.map_err(connect_error)?) {
        Some(tables) => Err(PersistError::ForeignTables {
            path: path.to_path_buf(),
            tables,
        }),
        None => Ok(()),
    }
}

/// The other program's tables among `names`, when none of ours is there. sqlx's own
/// bookkeeping table is nobody's data (and earlier releases kept our versions in it).
fn foreign(names: &[String]) -> Option<Vec<String>> {
    if names.iter().any(|n| is_ours(n)) {
        return None;
    }
    let theirs: Vec<String> = names
        .iter()
        .filter(|n| n.as_str() != "_sqlx_migrations")
        .cloned()
        .collect();
    (!theirs.is_empty()).then_some(theirs)
}

#[cfg(test)]
mod tests {
    use super::foreign;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn only_a_file_with_other_tables_and_none_of_ours_is_foreign() {
        assert_eq!(foreign(&[]), None);
        assert_eq!(foreign(&names(&["_sqlx_migrations"])), None);
        assert_eq!(
            foreign(&names(&["_sqlx_migrations", "invoices", "users"])),
            Some(names(&["invoices", "users"]))
        );
        assert_eq!(foreign(&names(&["users", "agentry_schema_versions"])), None);
        assert_eq!(foreign(&names(&["users", "agent_checkpoints"])), None);
    }
}
