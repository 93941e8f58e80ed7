//! One module of tests per backend, each running every case of the suite.

use std::sync::Arc;

use agentry::persist::{
    Checkpointer, InMemoryCheckpointer, PostgresCheckpointer, SqliteCheckpointer,
};
use agentry::testing::PostgresServer;

pub async fn memory() -> (Arc<dyn Checkpointer>, Guard) {
    (Arc::new(InMemoryCheckpointer::default()), Guard::None)
}

pub async fn sqlite() -> (Arc<dyn Checkpointer>, Guard) {
    let dir = tempfile::tempdir().expect("temp dir");
    let cp = SqliteCheckpointer::open(dir.path().join("threads.db"))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    (Arc::new(cp), Guard::Dir(dir))
}

/// SQLite over a pool that has no file (an in-memory database shared by the pool's
/// connections): the checkpointer cannot open a connection of its own to it and writes its
/// steps through the pool, so this runs the suite on that path.
pub async fn sqlite_pool() -> (Arc<dyn Checkpointer>, Guard) {
    let pool = sqlx::sqlite::SqlitePoolOptions::new()
        .max_connections(2)
        .connect("sqlite::memory:")
        .await
        .expect("in-memory pool");
    agentry::persist::migrate(&pool)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    (Arc::new(SqliteCheckpointer::from_pool(pool)), Guard::None)
}

/// A fresh database on the test binary's Postgres server.
pub async fn postgres_url() -> String {
    let server = PostgresServer::shared().unwrap_or_else(|e| panic!("{e}"));
    server.create_database().unwrap_or_else(|e| panic!("{e}"))
}

pub async fn postgres() -> (Arc<dyn Checkpointer>, Guard) {
    let cp = PostgresCheckpointer::connect(&postgres_url().await)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    (Arc::new(cp), Guard::None)
}

/// Keeps a backend's resources (a temporary directory) alive for the test.
pub enum Guard {
    None,
    #[allow(dead_code)]
    Dir(tempfile::TempDir),
}

macro_rules! suite {
    ($backend:ident) => {
        mod $backend {
            use super::super::{cases, lease_cases, since_cases};

            macro_rules! case {
                ($name:ident) => {
                    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                    async fn $name() {
                        let (cp, _guard) = super::$backend().await;
                        cases::$name(&*cp).await;
                    }
                };
                (since: $name:ident) => {
                    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                    async fn $name() {
                        let (cp, _guard) = super::$backend().await;
                        since_cases::$name(&*cp).await;
                    }
                };
                (leases: $name:ident) => {
                    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                    async fn $name() {
                        let (cp, _guard) = super::$backend().await;
                        lease_cases::$name(&*cp).await;
                    }
                };
            }

            case!(first_and_next_checkpoints_round_trip_every_field);
            case!(get_returns_the_messages_of_that_step);
            case!(history_is_newest_first_and_limited);
            case!(a_stale_writer_gets_a_conflict_and_changes_nothing);
            case!(threads_are_listed_and_deleted);
            case!(fork_starts_a_new_thread_from_an_old_checkpoint);
            case!(a_lease_is_exclusive_until_released);
            case!(an_expired_lease_is_taken_over_and_fences_the_old_holder);
            case!(bad_input_is_a_typed_error);
            case!(a_long_thread_keeps_every_message_in_order);
            case!(leases: a_write_without_the_lease_on_a_leased_thread_is_refused);
            case!(leases: an_expired_lease_no_longer_refuses_writes_without_one);
            case!(leases: a_fenced_write_after_the_thread_moved_on_is_a_lost_lease);
            case!(since: latest_since_loads_only_newer_messages_and_sees_a_replaced_thread);
            case!(since: orphans_are_threads_left_running_and_not_written_since);
        }
    };
}

suite!(memory);
suite!(sqlite);
suite!(sqlite_pool);
suite!(postgres);
