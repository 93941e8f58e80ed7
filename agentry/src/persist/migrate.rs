//! Bringing a pool of the application's own up to date with agentry's schema.

use futures::FutureExt;
use futures::future::BoxFuture;

use super::PersistError;

/// Creates or updates agentry's tables (checkpoints and the long-term store) in the database
/// of `pool`: for applications that bring their own pool (a [`sqlx::SqlitePool`] with feature
/// `sqlite`, a [`sqlx::PgPool`] with feature `postgres`) and hand it to
/// [`SqliteCheckpointer::from_pool`](super::SqliteCheckpointer::from_pool),
/// [`PostgresCheckpointer::from_pool`](super::PostgresCheckpointer::from_pool) or the stores'
/// `from_pool`. The opening paths (`open`, `connect`) run it themselves.
///
/// Our schema versions are kept in our own table, `agentry_schema_versions`, not in sqlx's
/// `_sqlx_migrations`: the application's `sqlx::migrate!()` and this function run on the same
/// database in either order. Migrating is one transaction under the database's migration lock
/// (SQLite's write lock, a Postgres advisory lock), so it is safe from several processes at
/// once, and idempotent. A database made by an earlier release, which kept our versions in
/// `_sqlx_migrations`, has them moved to our table.
///
/// Running it on a pool says the database is shared on purpose: unlike
/// [`SqliteCheckpointer::open`](super::SqliteCheckpointer::open), it adds our tables beside
/// other programs' tables. A table of ours with another shape is
/// [`PersistError::SchemaMismatch`].
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # #[cfg(feature = "sqlite")] {
/// use agentry::persist::{Checkpointer, SqliteCheckpointer, migrate};
///
/// let dir = tempfile::tempdir()?;
/// let url = format!("sqlite://{}?mode=rwc", dir.path().join("app.db").display());
/// let pool = sqlx::SqlitePool::connect(&url).await?;
/// sqlx::query("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
///     .execute(&pool)
///     .await?; // the application's own schema (or its `sqlx::migrate!().run(&pool)`)
///
/// migrate(&pool).await?;
/// migrate(&pool).await?; // idempotent
/// let checkpointer = SqliteCheckpointer::from_pool(pool);
/// assert!(checkpointer.threads(10).await?.is_empty());
/// # }
/// # Ok(()) }
/// ```
pub async fn migrate<P: MigratePool + ?Sized>(pool: &P) -> Result<(), PersistError> {
    pool.migrate_agentry().await
}

/// A connection pool [`migrate`] brings up to date: [`sqlx::SqlitePool`] (feature `sqlite`)
/// and [`sqlx::PgPool`] (feature `postgres`). Sealed: implemented for those two only.
///
/// ```
/// use agentry::persist::{MigratePool, PersistError, migrate};
///
/// /// An application's start-up, whichever database it was given.
/// async fn start(pool: &impl MigratePool) -> Result<(), PersistError> {
///     migrate(pool).await
/// }
/// # #[cfg(feature = "sqlite")]
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// # let pool = sqlx::SqlitePool::connect("sqlite::memory:").await.unwrap();
/// # start(&pool).await.unwrap();
/// # });
/// ```
pub trait MigratePool: sealed::Sealed + Sync {
    /// Runs agentry's migrations on this pool; call [`migrate`] instead.
    #[doc(hidden)]
    fn migrate_agentry(&self) -> BoxFuture<'_, Result<(), PersistError>>;
}

mod sealed {
    pub trait Sealed {}
    #[cfg(feature = "sqlite")]
    impl Sealed for sqlx::SqlitePool {}
    #[cfg(feature = "postgres")]
    impl Sealed for sqlx::PgPool {}
}

#[cfg(feature = "sqlite")]
impl MigratePool for sqlx::SqlitePool {
    fn migrate_agentry(&self) -> BoxFuture<'_, Result<(), PersistError>> {
        async move {
            let options = self.connect_options();
            let path = options.get_filename();
            super::schema_shape::migrate_sqlite(self, Some(path)).await
        }
        .boxed()
    }
}

#[cfg(feature = "postgres")]
impl MigratePool for sqlx::PgPool {
    fn migrate_agentry(&self) -> BoxFuture<'_, Result<(), PersistError>> {
        super::schema_shape::migrate_postgres(self).boxed()
    }
}
