//! The in-process store backend.

use std::collections::BTreeMap;
use std::sync::Mutex;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use super::{StoreBackend, StoreError};

type Key = (Vec<String>, String);

/// A store kept in memory, lost when the process ends.
#[derive(Debug, Default)]
pub struct InMemoryStore {
    docs: Mutex<BTreeMap<Key, Value>>,
}

impl InMemoryStore {
    fn key(namespace: &[&str], key: &str) -> Key {
        (
            namespace.iter().map(|s| s.to_string()).collect(),
            key.to_string(),
        )
    }

    fn docs(&self) -> std::sync::MutexGuard<'_, BTreeMap<Key, Value>> {
        self.docs.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl StoreBackend for InMemoryStore {
    fn get<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        let value = self.docs().get(&Self::key(namespace, key)).cloned();
        async move { Ok(value) }.boxed()
    }

    fn put<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
        value: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.docs().insert(Self::key(namespace, key), value);
        async { Ok(()) }.boxed()
    }

    fn delete<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let removed = self.docs().remove(&Self::key(namespace, key)).is_some();
        async move { Ok(removed) }.boxed()
    }

    fn list<'a>(
        &'a self,
        namespace: &'a [&'a str],
    ) -> BoxFuture<'a, Result<Vec<(String, Value)>, StoreError>> {
        let ns: Vec<String> = namespace.iter().map(|s| s.to_string()).collect();
        let items = self
            .docs()
            .iter()
            .filter(|((n, _), _)| *n == ns)
            .map(|((_, k), v)| (k.clone(), v.clone()))
            .collect();
        async move { Ok(items) }.boxed()
    }
}
