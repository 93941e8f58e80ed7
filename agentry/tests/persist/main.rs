//! The checkpointer conformance suite, run against every backend (in-memory, SQLite,
//! Postgres on a real server the harness starts), plus what only some backends have.

mod backends;
mod cases;
mod fixture;
mod lease_cases;
mod open_errors;
mod postgres_workers;
mod sqlite_guard;
