//! The in-process store backend.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use super::search::{SearchItem, SearchQuery, document_words};
use super::vector::score::{TopK, score};
use super::{ScoredItem, StoreBackend, StoreError, VectorQuery};

type Key = (Vec<String>, String);

#[derive(Debug)]
struct Entry {
    value: Value,
    expires_at: Option<Instant>,
    embedding: Option<Vec<f32>>,
}

impl Entry {
    fn live(&self, now: Instant) -> bool {
        self.expires_at.is_none_or(|t| t > now)
    }
}

/// A store kept in memory, lost when the process ends.
#[derive(Debug, Default)]
pub struct InMemoryStore {
    docs: Mutex<BTreeMap<Key, Entry>>,
    writes: AtomicUsize,
}

impl InMemoryStore {
    fn key(namespace: &[&str], key: &str) -> Key {
        (
            namespace.iter().map(|s| s.to_string()).collect(),
            key.to_string(),
        )
    }

    fn docs(&self) -> std::sync::MutexGuard<'_, BTreeMap<Key, Entry>> {
        self.docs.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn insert(
        &self,
        namespace: &[&str],
        key: &str,
        value: Value,
        ttl: Option<Duration>,
        embedding: Option<Vec<f32>>,
    ) {
        let now = Instant::now();
        let mut docs = self.docs();
        // Expired documents are swept every 256 writes, so memory stays bounded.
        if self.writes.fetch_add(1, Ordering::Relaxed) % 256 == 255 {
            docs.retain(|_, e| e.live(now));
        }
        docs.insert(
            Self::key(namespace, key),
            Entry {
                value,
                expires_at: ttl.and_then(|ttl| now.checked_add(ttl)),
                embedding,
            },
        );
    }

    /// Exact search: every live candidate's vector scored, the best `limit` kept.
    fn vector_search_now(&self, query: &VectorQuery, vector: &[f32]) -> Vec<ScoredItem> {
        let now = Instant::now();
        let prefix = &query.namespace_prefix;
        let docs = self.docs();
        let mut top = TopK::new(query.limit);
        for ((ns, key), entry) in docs.iter() {
            let Some(v) = &entry.embedding else { continue };
            if v.len() != vector.len() || !entry.live(now) || !ns.starts_with(prefix) {
                continue;
            }
            if !query.filters.iter().all(|f| f.matches(&entry.value)) {
                continue;
            }
            let s = score(query.metric, vector, v);
            if top.admits(s) {
                top.push(s, ns.clone(), key.clone(), &entry.value);
            }
        }
        top.into_sorted()
            .into_iter()
            .map(|(score, namespace, key, value)| ScoredItem {
                namespace,
                key,
                value: value.clone(),
                score,
            })
            .collect()
    }

    fn search_now(&self, query: &SearchQuery) -> Vec<SearchItem> {
        let now = Instant::now();
        let words = query.words();
        let prefix = &query.namespace_prefix;
        let docs = self.docs();
        let mut hits: Vec<(usize, &Key, &Value)> = docs
            .iter()
            .filter(|((ns, _), e)| e.live(now) && ns.starts_with(prefix))
            .filter(|(_, e)| query.filters.iter().all(|f| f.matches(&e.value)))
            .filter_map(|(k, e)| {
                if words.is_empty() {
                    return Some((0, k, &e.value));
                }
                let mut doc = Vec::new();
                document_words(&e.value, &mut doc);
                let score = words
                    .iter()
                    .map(|w| doc.iter().filter(|d| *d == w).count())
                    .try_fold(0, |acc, n| (n > 0).then_some(acc + n))?;
                Some((score, k, &e.value))
            })
            .collect();
        if !words.is_empty() {
            hits.sort_by_key(|(score, _, _)| std::cmp::Reverse(*score));
        }
        hits.into_iter()
            .skip(query.offset)
            .take(query.limit)
            .map(|(_, (ns, key), value)| SearchItem {
                namespace: ns.clone(),
                key: key.clone(),
                value: value.clone(),
            })
            .collect()
    }
}

impl StoreBackend for InMemoryStore {
    fn get<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        let now = Instant::now();
        let value = self
            .docs()
            .get(&Self::key(namespace, key))
            .filter(|e| e.live(now))
            .map(|e| e.value.clone());
        async move { Ok(value) }.boxed()
    }

    fn put<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
        value: Value,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.put_with_ttl(namespace, key, value, None)
    }

    fn put_with_ttl<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
        value: Value,
        ttl: Option<Duration>,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.insert(namespace, key, value, ttl, None);
        async { Ok(()) }.boxed()
    }

    fn put_embedded<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
        value: Value,
        ttl: Option<Duration>,
        embedding: Vec<f32>,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let checked = super::vector::check_vector(&embedding, "put");
        if checked.is_ok() {
            self.insert(namespace, key, value, ttl, Some(embedding));
        }
        async move { checked }.boxed()
    }

    fn vector_search<'a>(
        &'a self,
        query: &'a VectorQuery,
        vector: &'a [f32],
    ) -> BoxFuture<'a, Result<Vec<ScoredItem>, StoreError>> {
        let result = query
            .validate()
            .and_then(|()| super::vector::check_vector(vector, "vector_search"))
            .map(|()| self.vector_search_now(query, vector));
        async move { result }.boxed()
    }

    fn delete<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let now = Instant::now();
        let removed = self
            .docs()
            .remove(&Self::key(namespace, key))
            .is_some_and(|e| e.live(now));
        async move { Ok(removed) }.boxed()
    }

    fn list<'a>(
        &'a self,
        namespace: &'a [&'a str],
    ) -> BoxFuture<'a, Result<Vec<(String, Value)>, StoreError>> {
        let now = Instant::now();
        let ns: Vec<String> = namespace.iter().map(|s| s.to_string()).collect();
        let items = self
            .docs()
            .iter()
            .filter(|((n, _), e)| *n == ns && e.live(now))
            .map(|((_, k), e)| (k.clone(), e.value.clone()))
            .collect();
        async move { Ok(items) }.boxed()
    }

    fn search<'a>(
        &'a self,
        query: &'a SearchQuery,
    ) -> BoxFuture<'a, Result<Vec<SearchItem>, StoreError>> {
        let result = query.validate().map(|()| self.search_now(query));
        async move { result }.boxed()
    }
}
