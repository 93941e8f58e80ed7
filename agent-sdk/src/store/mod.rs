//! Long-term memory for tools: a namespaced key-value store of JSON documents.
//!
//! [`Store`] is a cheap-to-clone handle over any [`StoreBackend`]. Tools receive it by taking a
//! `Store` parameter.
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use agent_sdk::Store;
//! use serde_json::json;
//!
//! let store = Store::in_memory();
//! store.put(&["users", "7"], "prefs", json!({"units": "celsius"})).await.unwrap();
//! let prefs = store.get(&["users", "7"], "prefs").await.unwrap();
//! assert_eq!(prefs, Some(json!({"units": "celsius"})));
//! # });
//! ```

mod memory;

pub use memory::InMemoryStore;

use std::fmt;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;

/// A store operation that failed.
#[derive(Debug, thiserror::Error)]
#[error("store {operation} failed: {reason}")]
pub struct StoreError {
    /// The operation (`get`, `put`, `delete`, `list`).
    pub operation: &'static str,
    /// What went wrong.
    pub reason: String,
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
