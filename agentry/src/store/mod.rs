//! Long-term memory for tools: a namespaced key-value store of JSON documents.
//!
//! [`Store`] is a cheap-to-clone handle over any [`StoreBackend`]. Tools receive it by taking a
//! `Store` parameter. Backends: [`InMemoryStore`], [`SqliteStore`] (feature `sqlite`, on by
//! default) and [`PostgresStore`] (feature `postgres`). Each supports namespaces, put / get /
//! delete / list, [`search`](Store::search) (a namespace prefix, filters on JSON fields and
//! full-text search: FTS5 on SQLite, `tsvector` on Postgres) and an optional time to live.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use agentry::Store;
//! use serde_json::json;
//!
//! let store = Store::in_memory();
//! store.put(&["users", "7"], "prefs", json!({"units": "celsius"})).await.unwrap();
//! let prefs = store.get(&["users", "7"], "prefs").await.unwrap();
//! assert_eq!(prefs, Some(json!({"units": "celsius"})));
//! # });
//! ```

mod memory;
#[cfg(feature = "postgres")]
mod postgres;
mod search;
#[cfg(feature = "sqlite")]
mod sqlite;

pub use memory::InMemoryStore;
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
pub use search::{Filter, FilterOp, MAX_SEARCH_LIMIT, SearchItem, SearchQuery};
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;

/// A store operation that failed.
#[derive(Debug, thiserror::Error)]
#[error("store {operation} failed: {reason}")]
pub struct StoreError {
    /// The operation (`get`, `put`, `delete`, `list`, `search`).
    pub operation: &'static str,
    /// What went wrong.
    pub reason: String,
    /// The error that caused it (the database driver's, serde's), when there is one.
    #[source]
    pub source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl StoreError {
    /// The operation `operation` failed: `reason`.
    pub fn new(operation: &'static str, reason: impl Into<String>) -> Self {
        StoreError {
            operation,
            reason: reason.into(),
            source: None,
        }
    }

    /// The same error, caused by `source` (returned by
    /// [`Error::source`](std::error::Error::source), typed).
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }
}

/// A place to keep JSON documents under a namespace and a key.
pub trait StoreBackend: Send + Sync + 'static {
    /// The document under `namespace`/`key`, if any.
    fn get<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>>;
    /// Stores `value`, replacing what was there.
    fn put<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
        value: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
    /// Removes a document; returns whether there was one.
    fn delete<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;
    /// Every key and document directly under `namespace`, ordered by key.
    fn list<'a>(
        &'a self,
        namespace: &'a [&'a str],
    ) -> BoxFuture<'a, Result<Vec<(String, Value)>, StoreError>>;

    /// Stores `value` for `ttl` (forever when `None`): once it has passed, the document is no
    /// longer returned. The default supports no TTL and stores with [`put`](Self::put).
    fn put_with_ttl<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
        value: Value,
        ttl: Option<Duration>,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        match ttl {
            None => self.put(namespace, key, value),
            Some(_) => Box::pin(async {
                Err(StoreError::new(
                    "put",
                    "this store backend does not support a time to live",
                ))
            }),
        }
    }

    /// Documents matching `query` (see [`SearchQuery`]). The default supports no search.
    fn search<'a>(
        &'a self,
        query: &'a SearchQuery,
    ) -> BoxFuture<'a, Result<Vec<SearchItem>, StoreError>> {
        let _ = query;
        Box::pin(async {
            Err(StoreError::new(
                "search",
                "this store backend does not support search",
            ))
        })
    }
}

/// A shared handle to a [`StoreBackend`].
#[derive(Clone)]
pub struct Store(Arc<dyn StoreBackend>);

impl Store {
    /// A handle over `backend`.
    pub fn new(backend: impl StoreBackend) -> Self {
        Store(Arc::new(backend))
    }

    /// A new, empty in-process store.
    pub fn in_memory() -> Self {
        Store::new(InMemoryStore::default())
    }

    /// A store in the SQLite database at `path` (created when missing; WAL mode). A file that
    /// holds another program's tables and none of agentry's is refused: for an application's
    /// database, use `Store::new(SqliteStore::open_shared(path).await?)`.
    #[cfg(feature = "sqlite")]
    pub async fn sqlite(path: impl AsRef<std::path::Path>) -> Result<Self, StoreError> {
        Ok(Store::new(SqliteStore::open(path).await?))
    }

    /// A store in the Postgres database at `url`.
    #[cfg(feature = "postgres")]
    pub async fn postgres(url: &str) -> Result<Self, StoreError> {
        Ok(Store::new(PostgresStore::connect(url).await?))
    }

    /// The document under `namespace`/`key`, if any.
    pub async fn get(&self, namespace: &[&str], key: &str) -> Result<Option<Value>, StoreError> {
        self.0.get(namespace, key).await
    }

    /// Stores `value` under `namespace`/`key`.
    pub async fn put(&self, namespace: &[&str], key: &str, value: Value) -> Result<(), StoreError> {
        self.0.put(namespace, key, value).await
    }

    /// Removes a document; returns whether there was one.
    pub async fn delete(&self, namespace: &[&str], key: &str) -> Result<bool, StoreError> {
        self.0.delete(namespace, key).await
    }

    /// Stores `value` under `namespace`/`key` until `ttl` has passed.
    pub async fn put_with_ttl(
        &self,
        namespace: &[&str],
        key: &str,
        value: Value,
        ttl: Duration,
    ) -> Result<(), StoreError> {
        self.0.put_with_ttl(namespace, key, value, Some(ttl)).await
    }

    /// Documents matching `query`: a namespace prefix, filters on JSON fields, full-text.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use agentry::Store;
    /// use agentry::store::{Filter, SearchQuery};
    /// use serde_json::json;
    ///
    /// let store = Store::in_memory();
    /// store.put(&["notes", "7"], "a", json!({"text": "Prefers quiet hotels", "stars": 4})).await.unwrap();
    /// store.put(&["notes", "8"], "b", json!({"text": "Loves loud hotels", "stars": 2})).await.unwrap();
    /// let hits = store
    ///     .search(&SearchQuery::new(&["notes"]).text("hotels").filter(Filter::gte(["stars"], 3.0)))
    ///     .await
    ///     .unwrap();
    /// assert_eq!(hits.len(), 1);
    /// assert_eq!(hits[0].namespace, ["notes", "7"]);
    /// # });
    /// ```
    pub async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchItem>, StoreError> {
        query.validate()?;
        self.0.search(query).await
    }

    /// Every key and document directly under `namespace`, ordered by key.
    pub async fn list(&self, namespace: &[&str]) -> Result<Vec<(String, Value)>, StoreError> {
        self.0.list(namespace).await
    }
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Store")
    }
}
