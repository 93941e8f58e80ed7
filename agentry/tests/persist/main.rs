//! The checkpointer conformance suite, run against every backend (in-memory, SQLite,
//! Postgres on a real server the harness starts), plus what only some backends have.

mod app_migrations_postgres;
mod app_migrations_sqlite;
mod app_schema;
mod backends;
mod cases;
mod fixture;
mod lease_cases;
mod legacy_versions;
mod open_errors;
mod postgres_workers;
mod since_cases;
mod sqlite_busy_file;
mod sqlite_guard;
