//! Vector search in the store: documents stored with an embedding, found by similarity to a
//! query vector or text.
//!
//! Every backend searches exactly (every candidate vector is scored): the in-memory store and
//! SQLite score in Rust, Postgres in SQL over a `real[]` column. pgvector is not used, so a
//! stock Postgres server works; see the guide's retrieval chapter for the sizes this suits.
//!
//! A [`Store`](super::Store) given a [`StoreIndex`] (an [`EmbeddingModel`] and the fields to
//! embed) embeds documents on [`put`](super::Store::put) and text queries on
//! [`vector_search`](super::Store::vector_search):
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! use agentry::Store;
//! use agentry::store::{StoreIndex, VectorQuery};
//! use agentry::testing::HashEmbeddingModel;
//! use serde_json::json;
//!
//! let store = Store::in_memory().with_index(StoreIndex::new(HashEmbeddingModel::new(64)).field(["text"]));
//! store.put(&["docs"], "a", json!({"text": "Paris hotels near the river"})).await.unwrap();
//! store.put(&["docs"], "b", json!({"text": "Filing tax forms online"})).await.unwrap();
//! let hits = store.vector_search(&VectorQuery::text(&["docs"], "hotels in Paris").limit(1)).await.unwrap();
//! assert_eq!(hits[0].key, "a");
//! # });
//! ```

#[cfg(feature = "postgres")]
mod postgres;
mod retriever;
pub(crate) mod score;
#[cfg(feature = "sqlite")]
mod sqlite;

pub use retriever::RetrieverTool;
pub use score::score;

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use super::StoreError;
use super::search::{Filter, SearchQuery};
use crate::embed::{EmbeddingModel, Purpose, SharedEmbeddingModel};

/// The longest vector the store accepts.
pub const MAX_DIMENSIONS: usize = 65_536;

/// How vectors are compared. Scores are higher for closer vectors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Metric {
    /// Cosine similarity, in `[-1, 1]` (0 against a zero vector).
    #[default]
    Cosine,
    /// The dot product (for normalized vectors, the same order as cosine).
    Dot,
    /// The Euclidean distance, negated (so that higher is closer).
    L2,
}

/// What a vector search compares documents with.
#[derive(Clone, Debug, PartialEq)]
pub enum QueryInput {
    /// A text, embedded with the store's [`StoreIndex`] model.
    Text(String),
    /// A ready vector.
    Vector(Vec<f32>),
}

/// A vector search: the `limit` documents under a namespace prefix, matching every filter,
/// whose embeddings are closest to the query. Only documents stored with an embedding of the
/// query vector's length are candidates.
///
/// ```
/// use agentry::store::{Filter, Metric, VectorQuery};
///
/// let q = VectorQuery::vector(&["docs"], vec![0.1, 0.2, 0.3])
///     .filter(Filter::gte(["year"], 2020.0))
///     .metric(Metric::Dot)
///     .limit(5);
/// assert_eq!(q.limit, 5);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct VectorQuery {
    /// Only documents whose namespace starts with these segments (all when empty).
    pub namespace_prefix: Vec<String>,
    /// The text or vector to compare with.
    pub query: QueryInput,
    /// Conditions on fields of the document, all of which must hold (as in
    /// [`SearchQuery`]).
    pub filters: Vec<Filter>,
    /// At most this many results, best first (1 to [`MAX_SEARCH_LIMIT`](crate::store::MAX_SEARCH_LIMIT); 10 by default).
    pub limit: usize,
    /// How vectors are compared (cosine by default).
    pub metric: Metric,
}

impl VectorQuery {
    /// Documents under `namespace_prefix` closest to `text` (embedded by the store's index).
    pub fn text(namespace_prefix: &[&str], text: impl Into<String>) -> Self {
        Self::with(namespace_prefix, QueryInput::Text(text.into()))
    }

    /// Documents under `namespace_prefix` closest to `vector`.
    pub fn vector(namespace_prefix: &[&str], vector: Vec<f32>) -> Self {
        Self::with(namespace_prefix, QueryInput::Vector(vector))
    }

    fn with(namespace_prefix: &[&str], query: QueryInput) -> Self {
        VectorQuery {
            namespace_prefix: namespace_prefix.iter().map(|s| s.to_string()).collect(),
            query,
            filters: Vec::new(),
            limit: 10,
            metric: Metric::Cosine,
        }
    }

    /// Only documents matching `filter` too.
    pub fn filter(mut self, filter: Filter) -> Self {
        self.filters.push(filter);
        self
    }

    /// At most `limit` results.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Compares with `metric`.
    pub fn metric(mut self, metric: Metric) -> Self {
        self.metric = metric;
        self
    }

    /// Checks the query (limit, filters, a vector's numbers) before a backend runs it.
    pub fn validate(&self) -> Result<(), StoreError> {
        let mut as_search = SearchQuery::new(&[]);
        as_search.filters = self.filters.clone();
        as_search.limit = self.limit;
        as_search
            .validate()
            .map_err(|e| StoreError::new("vector_search", e.reason))?;
        match &self.query {
            QueryInput::Vector(v) => check_vector(v, "vector_search"),
            QueryInput::Text(_) => Ok(()),
        }
    }

    /// The query as a [`SearchQuery`] carrying its prefix and filters (for the backends'
    /// shared SQL).
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    pub(crate) fn prefix(&self) -> Vec<&str> {
        self.namespace_prefix.iter().map(String::as_str).collect()
    }
}

/// Checks a vector before it is stored or searched with.
pub(crate) fn check_vector(v: &[f32], operation: &'static str) -> Result<(), StoreError> {
    if v.is_empty() || v.len() > MAX_DIMENSIONS {
        return Err(StoreError::new(
            operation,
            format!(
                "a vector must have 1 to {MAX_DIMENSIONS} dimensions, got {}",
                v.len()
            ),
        ));
    }
    if v.iter().any(|x| !x.is_finite()) {
        return Err(StoreError::new(
            operation,
            "a vector must hold finite numbers only",
        ));
    }
    Ok(())
}

/// Checks a query and the vector it is run with before a backend runs them; returns the
/// namespace prefix as the backends store namespaces.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn checked_prefix(query: &VectorQuery, vector: &[f32]) -> Result<String, StoreError> {
    query.validate()?;
    check_vector(vector, "vector_search")?;
    super::search::join_namespace(&query.prefix(), "vector_search")
}

/// A result read back from a database: its namespace, key, document text and score.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn scored_row(
    namespace: Vec<String>,
    key: String,
    document: &str,
    score: f64,
) -> Result<ScoredItem, StoreError> {
    Ok(ScoredItem {
        namespace,
        key,
        value: super::search::decode_document(document, "vector_search")?,
        score,
    })
}

/// One vector search result.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoredItem {
    /// The document's namespace.
    pub namespace: Vec<String>,
    /// Its key.
    pub key: String,
    /// The document.
    pub value: Value,
    /// How close it is to the query (see [`Metric`]: higher is closer).
    pub score: f64,
}

/// What a store embeds: the model, and the fields of a document whose strings are embedded.
///
/// With no field given, every string in the document is embedded (joined by new lines). A
/// document with nothing to embed is stored without an embedding and is not found by vector
/// search.
#[derive(Clone)]
pub struct StoreIndex {
    model: SharedEmbeddingModel,
    fields: Vec<Vec<String>>,
}

impl StoreIndex {
    /// An index embedding with `model`.
    pub fn new(model: impl EmbeddingModel) -> Self {
        StoreIndex {
            model: Arc::new(model),
            fields: Vec::new(),
        }
    }

    /// An index embedding with a shared model.
    pub fn shared(model: SharedEmbeddingModel) -> Self {
        StoreIndex {
            model,
            fields: Vec::new(),
        }
    }

    /// Embeds the field at `path` too (its strings, when it is an array or object).
    pub fn field<I: IntoIterator<Item = S>, S: Into<String>>(mut self, path: I) -> Self {
        self.fields.push(path.into_iter().map(Into::into).collect());
        self
    }

    /// The model.
    pub fn model(&self) -> &SharedEmbeddingModel {
        &self.model
    }

    /// The text embedded for `doc`, or `None` when it has nothing to embed.
    pub fn text_of(&self, doc: &Value) -> Option<String> {
        let mut parts = Vec::new();
        if self.fields.is_empty() {
            strings(doc, &mut parts);
        } else {
            for path in &self.fields {
                let mut field = Some(doc);
                for key in path {
                    field = field.and_then(|f| f.get(key));
                }
                if let Some(field) = field {
                    strings(field, &mut parts);
                }
            }
        }
        let text = parts.join("\n");
        (!text.trim().is_empty()).then_some(text)
    }

    /// The embedding of `doc`, or `None` when it has nothing to embed.
    pub(crate) async fn embed_document(&self, doc: &Value) -> Result<Option<Vec<f32>>, StoreError> {
        Ok(self.embed_documents(&[doc]).await?.pop().flatten())
    }

    /// The embeddings of `docs`, in order (`None` for a document with nothing to embed): the
    /// texts go to the model together, which sends them in batches of at most its
    /// [`max_batch_size`](EmbeddingModel::max_batch_size).
    pub(crate) async fn embed_documents(
        &self,
        docs: &[&Value],
    ) -> Result<Vec<Option<Vec<f32>>>, StoreError> {
        let texts: Vec<Option<String>> = docs.iter().map(|d| self.text_of(d)).collect();
        let present: Vec<String> = texts.iter().flatten().cloned().collect();
        if present.is_empty() {
            return Ok(vec![None; docs.len()]);
        }
        let out = self
            .model
            .embed(&present, Purpose::Document)
            .await
            .map_err(|e| StoreError::new("put", format!("embedding failed: {e}")).with_source(e))?;
        if out.vectors.len() != present.len() {
            return Err(StoreError::new(
                "put",
                format!(
                    "asked for {} embeddings, the model returned {}",
                    present.len(),
                    out.vectors.len()
                ),
            ));
        }
        let mut vectors = out.vectors.into_iter();
        let mut embeddings = Vec::with_capacity(docs.len());
        for text in &texts {
            let v = match text {
                Some(_) => vectors.next(),
                None => None,
            };
            if let Some(v) = &v {
                check_vector(v, "put")?;
            }
            embeddings.push(v);
        }
        Ok(embeddings)
    }

    /// The embedding of a query text.
    pub(crate) async fn embed_query(&self, text: &str) -> Result<Vec<f32>, StoreError> {
        let v = self.model.embed_query(text).await.map_err(|e| {
            StoreError::new("vector_search", format!("embedding failed: {e}")).with_source(e)
        })?;
        check_vector(&v, "vector_search")?;
        Ok(v)
    }
}

impl fmt::Debug for StoreIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreIndex")
            .field("provider", &self.model.provider())
            .field("model", &self.model.model_name())
            .field("fields", &self.fields)
            .finish()
    }
}

fn strings<'a>(doc: &'a Value, out: &mut Vec<&'a str>) {
    match doc {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// A vector as little-endian `f32` bytes (SQLite's blob).
#[cfg_attr(not(feature = "sqlite"), allow(dead_code))]
pub(crate) fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Scores a blob of little-endian `f32` values against `q` without copying it (`None` when its
/// length is not `q`'s).
#[cfg_attr(not(feature = "sqlite"), allow(dead_code))]
pub(crate) fn score_blob(metric: Metric, q: &[f32], blob: &[u8]) -> Option<f64> {
    if blob.len() != q.len() * 4 {
        return None;
    }
    let mut v = Vec::with_capacity(q.len());
    v.extend(
        blob.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    Some(score(metric, q, &v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_of_fields() {
        let index = StoreIndex::new(crate::testing::HashEmbeddingModel::new(8))
            .field(["title"])
            .field(["body", "text"]);
        let doc = json!({"title": "T", "body": {"text": ["a", "b"]}, "other": "x"});
        assert_eq!(index.text_of(&doc).as_deref(), Some("T\na\nb"));
        assert_eq!(index.text_of(&json!({"other": "x"})), None);
        let all = StoreIndex::new(crate::testing::HashEmbeddingModel::new(8));
        assert_eq!(
            all.text_of(&json!({"n": 1, "s": "x"})).as_deref(),
            Some("x")
        );
    }

    #[test]
    fn blob_round_trip() {
        let v = [1.5f32, -2.0, 0.25];
        let b = to_blob(&v);
        assert_eq!(
            score_blob(Metric::Dot, &v, &b),
            Some(score(Metric::Dot, &v, &v))
        );
        assert_eq!(score_blob(Metric::Dot, &v[..2], &b), None);
    }
}
