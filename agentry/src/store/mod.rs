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
mod vector;

pub use memory::InMemoryStore;
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
pub use search::{Filter, FilterOp, MAX_SEARCH_LIMIT, SearchItem, SearchQuery};
#[cfg(feature = "sqlite")]
pub use sqlite::SqliteStore;
pub use vector::{
    MAX_DIMENSIONS, Metric, QueryInput, RetrieverTool, ScoredItem, StoreIndex, VectorQuery, score,
};

/// Lower-cased runs of letters and digits: how the store splits text into words.
#[cfg(feature = "testing")]
pub(crate) use search::words as text_words;

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

    /// Stores `value` with its `embedding` for `ttl` (forever when `None`), for
    /// [`vector_search`](Self::vector_search). (A plain [`put`](Self::put) stores a document
    /// without one.) The default supports no vector search.
    fn put_embedded<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
        value: Value,
        ttl: Option<Duration>,
        embedding: Vec<f32>,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let _ = (namespace, key, value, ttl, embedding);
        Box::pin(async {
            Err(StoreError::new(
                "put",
                "this store backend does not support vector search",
            ))
        })
    }

    /// The documents closest to `vector` under `query`'s prefix and filters, best first (the
    /// query's text, if any, is already embedded into `vector`). The default supports no
    /// vector search.
    fn vector_search<'a>(
        &'a self,
        query: &'a VectorQuery,
        vector: &'a [f32],
    ) -> BoxFuture<'a, Result<Vec<ScoredItem>, StoreError>> {
        let _ = (query, vector);
        Box::pin(async {
            Err(StoreError::new(
                "vector_search",
                "this store backend does not support vector search",
            ))
        })
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

/// A shared handle to a [`StoreBackend`], with an optional [`StoreIndex`] that embeds
/// documents on `put` and text queries on [`vector_search`](Store::vector_search).
#[derive(Clone)]
pub struct Store {
    backend: Arc<dyn StoreBackend>,
    index: Option<Arc<StoreIndex>>,
}

impl Store {
    /// A handle over `backend`.
    pub fn new(backend: impl StoreBackend) -> Self {
        Store {
            backend: Arc::new(backend),
            index: None,
        }
    }

    /// This store, embedding documents as `index` says when they are put (and text queries
    /// when searched). Documents put before keep their embedding, or lack of one.
    pub fn with_index(mut self, index: StoreIndex) -> Self {
        self.index = Some(Arc::new(index));
        self
    }

    /// The index, if the store has one.
    pub fn index(&self) -> Option<&StoreIndex> {
        self.index.as_deref()
    }

    /// A new, empty in-process store.
    pub fn in_memory() -> Self {
        Store::new(InMemoryStore::default())
    }

    /// A store in the SQLite database at `path` (created when missing; WAL mode). A file that
    /// holds another program's tables and none of agentry's is refused: for an application's
    /// database, use `Store::new(SqliteStore::open_shared(path).await?)`.
    #[cfg(feature = "sqlite")]
    pub fn sqlite(
        path: impl AsRef<std::path::Path>,
    ) -> futures::future::BoxFuture<'static, Result<Self, StoreError>> {
        use futures::FutureExt;
        // Not an `async fn`, as `SqliteStore::open`.
        SqliteStore::open(path)
            .map(|opened| Ok(Store::new(opened?)))
            .boxed()
    }

    /// A store in the Postgres database at `url`.
    #[cfg(feature = "postgres")]
    pub async fn postgres(url: &str) -> Result<Self, StoreError> {
        Ok(Store::new(PostgresStore::connect(url).await?))
    }

    /// The document under `namespace`/`key`, if any.
    pub async fn get(&self, namespace: &[&str], key: &str) -> Result<Option<Value>, StoreError> {
        self.backend.get(namespace, key).await
    }

    /// Stores `value` under `namespace`/`key` (embedded first when the store has an
    /// [`index`](Self::with_index); when embedding fails, nothing is stored and the error
    /// says why).
    pub async fn put(&self, namespace: &[&str], key: &str, value: Value) -> Result<(), StoreError> {
        self.put_maybe_ttl(namespace, key, value, None).await
    }

    async fn put_maybe_ttl(
        &self,
        namespace: &[&str],
        key: &str,
        value: Value,
        ttl: Option<Duration>,
    ) -> Result<(), StoreError> {
        let embedding = match &self.index {
            Some(index) => index.embed_document(&value).await?,
            None => None,
        };
        match embedding {
            Some(v) => {
                self.backend
                    .put_embedded(namespace, key, value, ttl, v)
                    .await
            }
            None if ttl.is_none() => self.backend.put(namespace, key, value).await,
            None => self.backend.put_with_ttl(namespace, key, value, ttl).await,
        }
    }

    /// Stores many documents under `namespace`, embedding them together first when the store
    /// has an [`index`](Self::with_index): the texts go to the embedding model in batches of
    /// at most its [`max_batch_size`](crate::embed::EmbeddingModel::max_batch_size), so a
    /// thousand documents are a few requests, not a thousand. When embedding fails, nothing is
    /// stored; the documents are then written one by one, in order (a backend error stops
    /// there, the earlier ones stay stored).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// use agentry::Store;
    /// use agentry::store::StoreIndex;
    /// use agentry::testing::HashEmbeddingModel;
    /// use serde_json::json;
    ///
    /// let model = HashEmbeddingModel::new(16).batch_size(50);
    /// let store = Store::in_memory().with_index(StoreIndex::new(model.clone()));
    /// let docs = (0..120).map(|i| (format!("d{i}"), json!({ "text": format!("note {i}") })));
    /// store.put_many(&["notes"], docs.collect()).await.unwrap();
    /// assert_eq!(model.batches(), 3); // 50 + 50 + 20 texts
    /// assert_eq!(store.list(&["notes"]).await.unwrap().len(), 120);
    /// # });
    /// ```
    pub async fn put_many(
        &self,
        namespace: &[&str],
        documents: Vec<(String, Value)>,
    ) -> Result<(), StoreError> {
        let embeddings = match &self.index {
            Some(index) => {
                let docs: Vec<&Value> = documents.iter().map(|(_, v)| v).collect();
                index.embed_documents(&docs).await?
            }
            None => vec![None; documents.len()],
        };
        for ((key, value), embedding) in documents.into_iter().zip(embeddings) {
            match embedding {
                Some(v) => {
                    self.backend
                        .put_embedded(namespace, &key, value, None, v)
                        .await?
                }
                None => self.backend.put(namespace, &key, value).await?,
            }
        }
        Ok(())
    }

    /// Stores `value` under `namespace`/`key` with a ready `embedding` (computed elsewhere),
    /// for [`vector_search`](Self::vector_search).
    pub async fn put_with_embedding(
        &self,
        namespace: &[&str],
        key: &str,
        value: Value,
        embedding: Vec<f32>,
    ) -> Result<(), StoreError> {
        vector::check_vector(&embedding, "put")?;
        self.backend
            .put_embedded(namespace, key, value, None, embedding)
            .await
    }

    /// The `query.limit` documents closest to the query, best first, with their scores. A
    /// text query is embedded with the store's [`index`](Self::with_index) (an error without
    /// one).
    pub async fn vector_search(&self, query: &VectorQuery) -> Result<Vec<ScoredItem>, StoreError> {
        query.validate()?;
        let vector = match &query.query {
            QueryInput::Vector(v) => v.clone(),
            QueryInput::Text(text) => match &self.index {
                Some(index) => index.embed_query(text).await?,
                None => {
                    return Err(StoreError::new(
                        "vector_search",
                        "a text query needs a store with an index to embed it (Store::with_index); pass a vector otherwise",
                    ));
                }
            },
        };
        self.backend.vector_search(query, &vector).await
    }

    /// Removes a document; returns whether there was one.
    pub async fn delete(&self, namespace: &[&str], key: &str) -> Result<bool, StoreError> {
        self.backend.delete(namespace, key).await
    }

    /// Stores `value` under `namespace`/`key` until `ttl` has passed.
    pub async fn put_with_ttl(
        &self,
        namespace: &[&str],
        key: &str,
        value: Value,
        ttl: Duration,
    ) -> Result<(), StoreError> {
        self.put_maybe_ttl(namespace, key, value, Some(ttl)).await
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
        self.backend.search(query).await
    }

    /// Every key and document directly under `namespace`, ordered by key.
    pub async fn list(&self, namespace: &[&str]) -> Result<Vec<(String, Value)>, StoreError> {
        self.backend.list(namespace).await
    }
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.index {
            None => f.write_str("Store"),
            Some(index) => f.debug_struct("Store").field("index", index).finish(),
        }
    }
}
