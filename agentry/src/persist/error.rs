//! What can go wrong when saving or loading checkpoints.

/// A checkpointer operation that failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PersistError {
    /// The thread moved on since the writer read it (another writer saved a step), or the
    /// thread already exists when a first checkpoint or a fork was asked for.
    #[error(
        "thread `{thread_id}` is {}, where the writer expected it {}: another writer advanced it; reload the latest checkpoint",
        at_step(*found),
        at_step(*expected)
    )]
    Conflict {
        /// The thread.
        thread_id: String,
        /// The step the writer expected the thread to be at (`None`: a new thread).
        expected: Option<u64>,
        /// The step it is at (`None`: no such thread).
        found: Option<u64>,
    },
    /// The checkpoint or thread asked for does not exist.
    #[error("no checkpoint {step} in thread `{thread_id}`")]
    NotFound {
        /// The thread.
        thread_id: String,
        /// The step.
        step: u64,
    },
    /// The writer's lease on the thread was taken over by another worker (or released).
    #[error("the lease on thread `{thread_id}` was lost: another worker holds it now")]
    LeaseLost {
        /// The thread.
        thread_id: String,
    },
    /// A run's lease ran out before its heartbeat could renew it (the database did not
    /// answer in time): the run stops before its next write, since another worker may have
    /// taken the thread over.
    #[error(
        "the lease on thread `{thread_id}` expired before it could be renewed ({reason}): the run stopped before writing, another worker may take the thread over"
    )]
    LeaseExpired {
        /// The thread.
        thread_id: String,
        /// Why the last renewal failed.
        reason: String,
    },
    /// A write that carried no lease, while another worker holds an unexpired lease on the
    /// thread: only the holder advances a leased thread.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use std::time::Duration;
    /// use agentry::Message;
    /// use agentry::persist::{CheckpointWrite, Checkpointer, InMemoryCheckpointer, PersistError};
    /// use serde_json::json;
    ///
    /// let cp = InMemoryCheckpointer::default();
    /// let (start, state) = ([Message::user("start")], json!({}));
    /// cp.put(CheckpointWrite::first("job-1", &start, &state)).await.unwrap();
    /// let lease = cp.acquire_lease("job-1", "worker-a", Duration::from_secs(30)).await.unwrap().unwrap();
    ///
    /// let next = [Message::assistant("next")];
    /// let err = cp.put(CheckpointWrite::next("job-1", 1, &next, &state)).await.unwrap_err();
    /// assert!(matches!(&err, PersistError::Leased { worker, .. } if worker == "worker-a"));
    /// cp.put(CheckpointWrite::next("job-1", 1, &next, &state).lease(&lease)).await.unwrap();
    /// # });
    /// ```
    #[error(
        "thread `{thread_id}` is leased to worker `{worker}`: a write without its lease is refused; acquire the lease, or wait until it is released or expires"
    )]
    Leased {
        /// The thread.
        thread_id: String,
        /// The worker that holds the lease.
        worker: String,
    },
    /// A checkpoint was written by a newer version of this library.
    #[error(
        "checkpoint format version {found} is newer than this library reads (up to {newest}); upgrade agentry"
    )]
    UnsupportedFormat {
        /// The version found.
        found: u32,
        /// The newest version this library reads.
        newest: u32,
    },
    /// Stored data that does not decode: a checkpoint body, a message, or the run status an
    /// agent keeps in a checkpoint (a thread whose status does not read is neither idle nor
    /// running, so no run starts over it).
    #[error("corrupt checkpoint data ({what}){}: {reason}", in_thread(thread_id.as_deref()))]
    Corrupt {
        /// The thread, when known.
        thread_id: Option<String>,
        /// What was being decoded.
        what: &'static str,
        /// Why it failed.
        reason: String,
        /// The decoder's error, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// Bad input from the caller (an empty thread id, a TTL out of range...).
    #[error("invalid {what}: {reason}")]
    Invalid {
        /// What was invalid.
        what: &'static str,
        /// Why.
        reason: String,
    },
    /// The file opened as a SQLite database is not one (SQLite's `SQLITE_NOTADB`): another
    /// kind of file, or an encrypted database.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use agentry::persist::{PersistError, SqliteCheckpointer};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("notes.txt");
    /// std::fs::write(&path, "Notes, not a database. ".repeat(100)).unwrap();
    /// let err = SqliteCheckpointer::open(&path).await.unwrap_err();
    /// assert!(matches!(&err, PersistError::NotADatabase { path: p, .. } if *p == path));
    /// assert!(std::error::Error::source(&err).is_some()); // SQLite's own error
    /// # }
    /// ```
    #[error("`{}` is not a SQLite database (another kind of file, or an encrypted database)", path.display())]
    NotADatabase {
        /// The file.
        path: std::path::PathBuf,
        /// The database error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The SQLite file holds tables of another program and none of ours: it looks like an
    /// application's database, and agentry adds its tables to one only when asked — open it
    /// with `SqliteCheckpointer::open_shared` (or `SqliteStore::open_shared`), or run
    /// [`migrate`](crate::persist::migrate) on your own pool.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use agentry::persist::{PersistError, SqliteCheckpointer};
    /// use sqlx::Connection;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("app.db");
    /// let url = format!("sqlite://{}?mode=rwc", path.display());
    /// let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    /// sqlx::query("CREATE TABLE users (id INTEGER PRIMARY KEY)").execute(&mut conn).await.unwrap();
    /// conn.close().await.unwrap();
    ///
    /// let err = SqliteCheckpointer::open(&path).await.unwrap_err();
    /// assert!(matches!(&err, PersistError::ForeignTables { tables, .. } if tables == &["users"]));
    /// assert!(err.to_string().contains("open_shared"));
    /// SqliteCheckpointer::open_shared(&path).await.unwrap(); // asked for: our tables beside theirs
    /// # }
    /// ```
    #[error(
        "`{}` holds tables of another program ({}) and none of agentry's; agentry adds its tables to such a database only when asked: open it with `open_shared` (SqliteCheckpointer::open_shared, SqliteStore::open_shared) or run `agentry::persist::migrate(&pool)` on your pool, or use another file",
        path.display(),
        tables.join(", ")
    )]
    ForeignTables {
        /// The file.
        path: std::path::PathBuf,
        /// The other program's tables.
        tables: Vec<String>,
    },
    /// A table this library creates (`agent_checkpoints`, `agent_threads`, ...) already exists
    /// in the database without columns it needs: it belongs to another program (or was
    /// changed by hand). Use another database file, or another Postgres schema or database.
    #[error(
        "table `{table}` already exists in this database without the column(s) {} that agentry needs: it belongs to another program; use another database (or Postgres schema)",
        missing.join(", ")
    )]
    SchemaMismatch {
        /// The table.
        table: String,
        /// The columns it lacks.
        missing: Vec<String>,
        /// The migration's error, when creating the table failed (`None` when the migrations
        /// had already run and the table was changed since).
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// The database failed.
    #[error("checkpoint {operation} failed: {source}")]
    Backend {
        /// The operation (`put`, `latest`, `fork`, ...).
        operation: &'static str,
        /// The database error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl PersistError {
    #[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
    pub(crate) fn backend(
        operation: &'static str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        PersistError::Backend {
            operation,
            source: Box::new(source),
        }
    }

    pub(crate) fn corrupt(what: &'static str, reason: impl ToString) -> Self {
        PersistError::Corrupt {
            thread_id: None,
            what,
            reason: reason.to_string(),
            source: None,
        }
    }

    /// `what` failed to encode or decode with `source` (kept as the error's source).
    pub(crate) fn corrupt_by(
        what: &'static str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        PersistError::Corrupt {
            thread_id: None,
            what,
            reason: source.to_string(),
            source: Some(Box::new(source)),
        }
    }

    /// Thread `thread_id`'s `what` failed to decode with `source`.
    pub(crate) fn corrupt_in(
        thread_id: &str,
        what: &'static str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        PersistError::Corrupt {
            thread_id: Some(thread_id.to_string()),
            what,
            reason: source.to_string(),
            source: Some(Box::new(source)),
        }
    }
}

/// Which thread, for [`PersistError::Corrupt`]'s message.
fn in_thread(thread_id: Option<&str>) -> String {
    thread_id.map_or_else(String::new, |t| format!(" in thread `{t}`"))
}

/// Where a thread is, for [`PersistError::Conflict`]'s message.
fn at_step(step: Option<u64>) -> String {
    match step {
        Some(step) => format!("at step {step}"),
        None => "without checkpoints".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::PersistError;

    #[test]
    fn a_conflict_names_steps_as_numbers() {
        let conflict = |expected, found| PersistError::Conflict {
            thread_id: "t".into(),
            expected,
            found,
        };
        assert_eq!(
            conflict(Some(34), Some(35)).to_string(),
            "thread `t` is at step 35, where the writer expected it at step 34: another writer \
             advanced it; reload the latest checkpoint"
        );
        assert!(conflict(None, Some(0)).to_string().starts_with(
            "thread `t` is at step 0, where the writer expected it without checkpoints:"
        ));
    }
}
