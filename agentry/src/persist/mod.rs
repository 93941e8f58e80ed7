//! Threads and checkpoints: a run's progress saved after each step, so a conversation continues
//! across requests and processes and a run survives a crash.
//!
//! A **thread** is a conversation identified by a string. Each step of a run on it is saved
//! as a [`Checkpoint`]: the messages, the typed state (as JSON), the usage, the loop's counters
//! and a pending pause, numbered by `step`. Messages are stored append-only — a checkpoint
//! only records how many of the thread's messages it covers — so saving a step costs the same
//! at 10 and at 1,000 messages.
//!
//! A [`Checkpointer`] stores them. Three backends:
//! - [`InMemoryCheckpointer`]: in-process, lost on exit (tests, short-lived servers);
//! - [`SqliteCheckpointer`] (feature `sqlite`, on by default): the embedded default, one file,
//!   WAL mode, `synchronous = NORMAL`;
//! - [`PostgresCheckpointer`] (feature `postgres`): for many worker processes, with leases
//!   that give one thread to one worker at a time.
//!
//! The serialized format carries a version ([`FORMAT_VERSION`]); older checkpoints are
//! upgraded when read (see [`mod@format`]).
//!
//! The SQL backends create their tables when opened and keep their schema versions in their
//! own table, `agentry_schema_versions`, so an application's own sqlx migrations can share the
//! database; an application that brings its own pool runs `migrate(&pool)` (features
//! `sqlite`, `postgres`).
//!
//! Agents write these checkpoints themselves when run in a thread: see
//! [`Agent::thread`](crate::agent::Agent::thread) (history and typed state loaded, a checkpoint
//! after each step, pauses stored, crash recovery).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use agentry::Message;
//! use agentry::persist::{Checkpointer, CheckpointWrite, InMemoryCheckpointer};
//! use serde_json::json;
//!
//! let cp = InMemoryCheckpointer::default();
//! let state = json!({"hotels": []});
//! let first = [Message::user("Plan two days in Paris")];
//! let meta = cp.put(CheckpointWrite::first("trip-7", &first, &state)).await.unwrap();
//! let more = [Message::assistant("Day 1: the Louvre.")];
//! cp.put(CheckpointWrite::next("trip-7", meta.step, &more, &state)).await.unwrap();
//!
//! let latest = cp.latest("trip-7").await.unwrap().unwrap();
//! assert_eq!(latest.step, 2);
//! assert_eq!(latest.messages.len(), 2);
//! # });
//! ```

mod checkpoint;
mod checkpointer;
mod error;
pub mod format;
mod lease;
mod memory;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod migrate;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod refusal;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod schema_shape;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod schema_versions;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) mod sql;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod sql_shared;
#[cfg(feature = "sqlite")]
mod sqlite;
#[cfg(feature = "sqlite")]
mod sqlite_busy;
#[cfg(feature = "sqlite")]
mod sqlite_conn;
#[cfg(feature = "sqlite")]
mod sqlite_load;
#[cfg(feature = "sqlite")]
mod sqlite_script;
#[cfg(feature = "sqlite")]
mod sqlite_sharing;
#[cfg(feature = "sqlite")]
mod sqlite_writer;

pub use checkpoint::{Checkpoint, CheckpointMeta, CheckpointRef, CheckpointWrite, ThreadInfo};
pub use checkpointer::Checkpointer;
pub use error::PersistError;
pub use format::FORMAT_VERSION;
pub use lease::Lease;
pub use memory::InMemoryCheckpointer;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use migrate::{MigratePool, migrate};
#[cfg(feature = "postgres")]
pub use postgres::PostgresCheckpointer;
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteCheckpointer;
