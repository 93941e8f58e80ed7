//! Our schema migrations, applied with their versions kept in our own table,
//! `agentry_schema_versions`, rather than sqlx's shared `_sqlx_migrations`: an application
//! that runs its own sqlx migrator on the same database neither sees our versions (sqlx's
//! migrator refuses versions it does not know with `VersionMissing`) nor has its versions
//! seen by us.
//!
//! Everything happens in one transaction that first takes the database's migration lock
//! (SQLite: `BEGIN IMMEDIATE`, the write lock; Postgres: a transaction-scoped advisory lock),
//! so two processes migrating at once apply each migration once, and a failed migration
//! leaves nothing behind. Databases made by releases that kept our versions in
//! `_sqlx_migrations` are recognised by those rows (our versions, described `agentry ...`),
//! which move to our table.

#[cfg(feature = "postgres")]
use sqlx::Connection;

/// Our table of applied versions.
pub(crate) const VERSIONS_TABLE: &str = "agentry_schema_versions";

/// Dated versions (`YYYYMMDDnnnn`), as releases that used sqlx's table recorded them.
const CHECKPOINTS: i64 = 202611230001;
const STORE: i64 = 202611230002;
const STORE_EMBEDDINGS: i64 = 202611260003;

/// The Postgres advisory lock key of our migrations (`agentry` in ASCII).
#[cfg(feature = "postgres")]
const PG_LOCK_KEY: i64 = 0x0061_6765_6e74_7279;

/// One migration: its version, description and SQL script.
type Migration = (i64, &'static str, &'static str);

#[cfg(feature = "sqlite")]
const SQLITE: [Migration; 3] = [
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
    (
        STORE_EMBEDDINGS,
        "agentry store embeddings",
        include_str!("../../migrations/sqlite/0003_store_embeddings.sql"),
    ),
];

#[cfg(feature = "postgres")]
const POSTGRES: [Migration; 3] = [
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
    (
        STORE_EMBEDDINGS,
        "agentry store embeddings",
        include_str!("../../migrations/postgres/0003_store_embeddings.sql"),
    ),
];

/// Our rows in sqlx's table, as earlier releases wrote them.
const LEGACY_ROWS: &str =
    "version IN (202611230001, 202611230002) AND description LIKE 'agentry %'";

/// Inside a backend's transaction `$tx`: moves our rows from `_sqlx_migrations` (earlier
/// releases) to our table. A macro rather than a generic over `sqlx::Database`, for the same
/// reason as `sql_shared`: sqlx's executor bounds over a generic transaction do not hold
/// inside a `Send` future.
macro_rules! carry_over {
    ($tx:expr) => {{
        let moved = sqlx::query(&format!(
            "INSERT INTO agentry_schema_versions (version, description, applied_at_ms)
             SELECT version, description, $1 FROM _sqlx_migrations WHERE success AND {LEGACY_ROWS}
             ON CONFLICT (version) DO NOTHING"
        ))
        .bind(super::lease::now_ms())
        .execute(&mut *$tx)
        .await?
        .rows_affected();
        let removed = sqlx::query(&format!("DELETE FROM _sqlx_migrations WHERE {LEGACY_ROWS}"))
            .execute(&mut *$tx)
            .await?
            .rows_affected();
        if moved + removed > 0 {
            tracing::info!(
                moved,
                "agentry's schema versions moved from `_sqlx_migrations` to `{VERSIONS_TABLE}`"
            );
        }
    }};
}

/// Inside a backend's transaction `$tx`: runs each migration of `$migrations` whose version is
/// not in our table, and records it.
macro_rules! apply_missing {
    ($tx:expr, $migrations:expr) => {{
        let applied: Vec<i64> = sqlx::query_scalar("SELECT version FROM agentry_schema_versions")
            .fetch_all(&mut *$tx)
            .await?;
        for &(version, description, sql) in $migrations.iter() {
            if applied.contains(&version) {
                continue;
            }
            sqlx::Executor::execute(&mut *$tx, sql).await?;
            sqlx::query(
                "INSERT INTO agentry_schema_versions (version, description, applied_at_ms)
                 VALUES ($1, $2, $3)",
            )
            .bind(version)
            .bind(description)
            .bind(super::lease::now_ms())
            .execute(&mut *$tx)
            .await?;
            tracing::debug!(version, description, "agentry migration applied");
        }
    }};
}

/// Applies the missing SQLite migrations in one write transaction.
#[cfg(feature = "sqlite")]
pub(crate) async fn apply_sqlite(pool: &sqlx::SqlitePool) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    sqlx::query(
        "CREATE TABLE IF NOT EXISTS agentry_schema_versions (
             version        INTEGER PRIMARY KEY NOT NULL,
             description    TEXT NOT NULL,
             applied_at_ms  INTEGER NOT NULL
         )",
    )
    .execute(&mut *tx)
    .await?;
    let legacy: bool = sqlx::query_scalar(
        "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
    )
    .fetch_one(&mut *tx)
    .await?;
    if legacy {
        carry_over!(tx);
    }
    apply_missing!(tx, SQLITE);
    tx.commit().await
}

/// Applies the missing Postgres migrations in one transaction, under an advisory lock.
#[cfg(feature = "postgres")]
pub(crate) async fn apply_postgres(pool: &sqlx::PgPool) -> Result<(), sqlx::Error> {
    let mut conn = pool.acquire().await?;
    let mut tx = conn.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(PG_LOCK_KEY)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "CREATE TABLE IF NOT EXISTS agentry_schema_versions (
             version        BIGINT PRIMARY KEY,
             description    TEXT NOT NULL,
             applied_at_ms  BIGINT NOT NULL
         )",
    )
    .execute(&mut *tx)
    .await?;
    let legacy: bool = sqlx::query_scalar("SELECT to_regclass('_sqlx_migrations') IS NOT NULL")
        .fetch_one(&mut *tx)
        .await?;
    if legacy {
        carry_over!(tx);
    }
    apply_missing!(tx, POSTGRES);
    tx.commit().await
}
