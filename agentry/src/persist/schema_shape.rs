//! Whether the tables of ours already in a database have the shape our migrations give them,
//! and what an error while opening a database means: not a database at all
//! ([`PersistError::NotADatabase`]), a table of ours with another shape
//! ([`PersistError::SchemaMismatch`]), or a failure of the database
//! ([`PersistError::Backend`]).

use super::PersistError;

/// Our tables and the columns the migrations create in them (the same names on SQLite and
/// Postgres). A table may have more columns; one without these is someone else's.
const TABLES: [(&str, &[&str]); 5] = [
    (
        "agent_threads",
        &[
            "thread_id",
            "latest_step",
            "message_count",
            "parent_thread",
            "parent_step",
            "created_at_ms",
            "updated_at_ms",
        ],
    ),
    ("agent_messages", &["thread_id", "seq", "body"]),
    (
        "agent_checkpoints",
        &[
            "thread_id",
            "step",
            "parent_thread",
            "parent_step",
            "format_version",
            "message_count",
            "body",
            "created_at_ms",
        ],
    ),
    (
        "agent_leases",
        &["thread_id", "worker", "token", "expires_at_ms"],
    ),
    (
        "agent_store",
        &[
            "namespace",
            "key",
            "value",
            "created_at_ms",
            "updated_at_ms",
            "expires_at_ms",
        ],
    ),
];

/// SQLite's `SQLITE_NOTADB` result code: the file is not a database.
const SQLITE_NOTADB: &str = "26";

/// The first table of ours in `columns` (`(table, column)` pairs of the tables that exist)
/// that lacks columns it should have, with those columns.
fn first_mismatch(columns: &[(String, String)]) -> Option<(String, Vec<String>)> {
    TABLES.iter().find_map(|(table, expected)| {
        let present: Vec<&str> = columns
            .iter()
            .filter(|(t, _)| t == table)
            .map(|(_, c)| c.as_str())
            .collect();
        if present.is_empty() {
            return None; // not there (yet): the migrations create it
        }
        let missing: Vec<String> = expected
            .iter()
            .filter(|c| !present.contains(c))
            .map(|c| c.to_string())
            .collect();
        (!missing.is_empty()).then(|| (table.to_string(), missing))
    })
}

/// Whether `e` says the file is not a SQLite database.
fn is_not_a_database(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.code().as_deref() == Some(SQLITE_NOTADB))
}

/// Whether `name` is one of the tables our migrations create (the full-text index's shadow
/// tables and our version table included).
pub(crate) fn is_ours(name: &str) -> bool {
    TABLES.iter().any(|(table, _)| *table == name)
        || name.starts_with("agent_store_fts")
        || name == super::schema_versions::VERSIONS_TABLE
}

/// What `migrated` (the migrations' outcome) means, given the columns of our tables found
/// afterwards (`None` when they could not be read); `path` is the SQLite file, if any.
fn judge(
    migrated: Result<(), sqlx::Error>,
    columns: Option<Vec<(String, String)>>,
    path: Option<&std::path::Path>,
) -> Result<(), PersistError> {
    let not_a_database = migrated.as_ref().err().is_some_and(is_not_a_database);
    if let (Some(path), true) = (path, not_a_database) {
        return Err(PersistError::NotADatabase {
            path: path.to_path_buf(),
            source: Box::new(migrated.expect_err("checked above")),
        });
    }
    if let Some((table, missing)) = columns.as_deref().and_then(first_mismatch) {
        return Err(PersistError::SchemaMismatch {
            table,
            missing,
            source: migrated
                .err()
                .map(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>),
        });
    }
    migrated.map_err(|e| PersistError::backend("open", e))
}

/// Runs the SQLite migrations on `pool` (opened from `path`, when known) and checks our
/// tables' shape.
#[cfg(feature = "sqlite")]
pub(crate) async fn migrate_sqlite(
    pool: &sqlx::SqlitePool,
    path: Option<&std::path::Path>,
) -> Result<(), PersistError> {
    let migrated = super::schema_versions::apply_sqlite(pool).await;
    let columns = sqlx::query_as::<_, (String, String)>(
        "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p
         WHERE m.type = 'table' AND m.name LIKE 'agent\\_%' ESCAPE '\\'",
    )
    .fetch_all(pool)
    .await
    .ok();
    judge(migrated, columns, path)
}

/// The error of a failed SQLite connection to `path`.
#[cfg(feature = "sqlite")]
pub(crate) fn sqlite_connect_error(path: &std::path::Path, e: sqlx::Error) -> PersistError {
    if is_not_a_database(&e) {
        PersistError::NotADatabase {
            path: path.to_path_buf(),
            source: Box::new(e),
        }
    } else {
        PersistError::backend("open", e)
    }
}

/// Runs the Postgres migrations on `pool` and checks our tables' shape (in the connection's
/// current schema).
#[cfg(feature = "postgres")]
pub(crate) async fn migrate_postgres(pool: &sqlx::PgPool) -> Result<(), PersistError> {
    let migrated = super::schema_versions::apply_postgres(pool).await;
    let columns = sqlx::query_as::<_, (String, String)>(
        "SELECT table_name::text, column_name::text FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name LIKE 'agent\\_%'",
    )
    .fetch_all(pool)
    .await
    .ok();
    judge(migrated, columns, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(t, c)| (t.to_string(), c.to_string()))
            .collect()
    }

    #[test]
    fn a_table_without_our_columns_is_a_mismatch_and_absent_tables_are_not() {
        assert_eq!(first_mismatch(&[]), None);
        let found = first_mismatch(&cols(&[
            ("agent_checkpoints", "id"),
            ("agent_checkpoints", "body"),
        ]));
        let (table, missing) = found.unwrap();
        assert_eq!(table, "agent_checkpoints");
        assert!(missing.contains(&"thread_id".to_string()));
        assert!(!missing.contains(&"body".to_string()));
    }
}
