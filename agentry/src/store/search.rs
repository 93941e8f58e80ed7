//! Searching the store: a namespace prefix, filters on JSON fields and full-text search.

use serde_json::Value;

use super::StoreError;

/// The most results one search returns.
pub const MAX_SEARCH_LIMIT: usize = 1000;

/// What to look for: documents under a namespace prefix, matching every filter and, when
/// `text` is set, containing every word of it.
///
/// ```
/// use agentry::store::{Filter, SearchQuery};
/// use serde_json::json;
///
/// let query = SearchQuery::new(&["users"])
///     .text("paris hotel")
///     .filter(Filter::eq(["prefs", "units"], json!("celsius")))
///     .filter(Filter::gte(["stars"], 4.0))
///     .limit(20);
/// assert_eq!(query.limit, 20);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SearchQuery {
    /// Only documents whose namespace starts with these segments (all when empty).
    pub namespace_prefix: Vec<String>,
    /// Words that must all occur in the document's strings (case-insensitive; punctuation
    /// separates words). Results are then ordered by relevance.
    pub text: Option<String>,
    /// Conditions on fields of the document, all of which must hold.
    pub filters: Vec<Filter>,
    /// At most this many results (1 to [`MAX_SEARCH_LIMIT`]; 10 by default).
    pub limit: usize,
    /// Skip this many results first.
    pub offset: usize,
}

impl SearchQuery {
    /// Every document under `namespace_prefix`.
    pub fn new(namespace_prefix: &[&str]) -> Self {
        SearchQuery {
            namespace_prefix: namespace_prefix.iter().map(|s| s.to_string()).collect(),
            text: None,
            filters: Vec::new(),
            limit: 10,
            offset: 0,
        }
    }

    /// Only documents containing every word of `text`.
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
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

    /// Skips the first `offset` results.
    pub fn offset(mut self, offset: usize) -> Self {
        self.offset = offset;
        self
    }

    /// Checks the query before a backend runs it.
    pub fn validate(&self) -> Result<(), StoreError> {
        let invalid = |reason: String| StoreError::new("search", reason);
        if self.limit == 0 || self.limit > MAX_SEARCH_LIMIT {
            return Err(invalid(format!(
                "limit must be 1 to {MAX_SEARCH_LIMIT}, got {}",
                self.limit
            )));
        }
        for filter in &self.filters {
            if filter.path.is_empty() {
                return Err(invalid("a filter needs a field path".into()));
            }
            if let Some(bad) = filter
                .path
                .iter()
                .find(|k| k.is_empty() || k.contains(['"', '\\']) || k.len() > 256)
            {
                return Err(invalid(format!(
                    "field name {bad:?} in a filter must be 1 to 256 bytes without `\"` or `\\`"
                )));
            }
            if matches!(filter.value, Value::Array(_) | Value::Object(_)) {
                return Err(invalid(format!(
                    "filters compare a field with a string, number, boolean or null, not {}",
                    filter.value
                )));
            }
            if filter.op != FilterOp::Eq && !filter.value.is_number() {
                return Err(invalid(format!(
                    "`{:?}` compares numbers; got {}",
                    filter.op, filter.value
                )));
            }
        }
        Ok(())
    }

    /// The query's words, as every backend tokenizes them.
    pub(crate) fn words(&self) -> Vec<String> {
        self.text.as_deref().map(words).unwrap_or_default()
    }
}

/// A condition on one field of a document.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    /// The path of object keys to the field, e.g. `["prefs", "units"]`.
    pub path: Vec<String>,
    /// The comparison.
    pub op: FilterOp,
    /// The value compared with: a string, number, boolean or null (a number for the ordering
    /// comparisons).
    pub value: Value,
}

/// How a [`Filter`] compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterOp {
    /// The field equals the value (numbers compare by value: `1` equals `1.0`).
    Eq,
    /// The field is a number greater than the value.
    Gt,
    /// The field is a number greater than or equal to the value.
    Gte,
    /// The field is a number less than the value.
    Lt,
    /// The field is a number less than or equal to the value.
    Lte,
}

impl FilterOp {
    #[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
    pub(crate) fn sql(self) -> &'static str {
        match self {
            FilterOp::Eq => "=",
            FilterOp::Gt => ">",
            FilterOp::Gte => ">=",
            FilterOp::Lt => "<",
            FilterOp::Lte => "<=",
        }
    }
}

fn path<I, S>(path: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    path.into_iter().map(Into::into).collect()
}

impl Filter {
    /// The field at `path` equals `value`.
    pub fn eq<I: IntoIterator<Item = S>, S: Into<String>>(field: I, value: Value) -> Self {
        Filter {
            path: path(field),
            op: FilterOp::Eq,
            value,
        }
    }

    /// The field at `path` is a number greater than `value`.
    pub fn gt<I: IntoIterator<Item = S>, S: Into<String>>(field: I, value: f64) -> Self {
        Filter::number(field, FilterOp::Gt, value)
    }

    /// The field at `path` is a number at least `value`.
    pub fn gte<I: IntoIterator<Item = S>, S: Into<String>>(field: I, value: f64) -> Self {
        Filter::number(field, FilterOp::Gte, value)
    }

    /// The field at `path` is a number less than `value`.
    pub fn lt<I: IntoIterator<Item = S>, S: Into<String>>(field: I, value: f64) -> Self {
        Filter::number(field, FilterOp::Lt, value)
    }

    /// The field at `path` is a number at most `value`.
    pub fn lte<I: IntoIterator<Item = S>, S: Into<String>>(field: I, value: f64) -> Self {
        Filter::number(field, FilterOp::Lte, value)
    }

    fn number<I: IntoIterator<Item = S>, S: Into<String>>(
        field: I,
        op: FilterOp,
        value: f64,
    ) -> Self {
        Filter {
            path: path(field),
            op,
            value: serde_json::Number::from_f64(value).map_or(Value::Null, Value::Number),
        }
    }

    /// Whether `doc` satisfies the filter (the in-memory backend's evaluation; the database
    /// backends evaluate the same rule in SQL).
    pub(crate) fn matches(&self, doc: &Value) -> bool {
        let mut field = doc;
        for key in &self.path {
            match field.get(key) {
                Some(v) => field = v,
                None => return false,
            }
        }
        match (self.op, field, &self.value) {
            (FilterOp::Eq, Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
            (FilterOp::Eq, a, b) => a == b,
            (op, Value::Number(a), Value::Number(b)) => {
                let (a, b) = (
                    a.as_f64().unwrap_or(f64::NAN),
                    b.as_f64().unwrap_or(f64::NAN),
                );
                match op {
                    FilterOp::Gt => a > b,
                    FilterOp::Gte => a >= b,
                    FilterOp::Lt => a < b,
                    FilterOp::Lte => a <= b,
                    FilterOp::Eq => unreachable!("handled above"),
                }
            }
            _ => false,
        }
    }
}

/// One search result.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchItem {
    /// The document's namespace.
    pub namespace: Vec<String>,
    /// Its key.
    pub key: String,
    /// The document.
    pub value: Value,
}

/// Lower-cased runs of letters and digits: how the store splits text into words.
pub(crate) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Every string in a JSON document, as words.
pub(crate) fn document_words(doc: &Value, out: &mut Vec<String>) {
    match doc {
        Value::String(s) => out.extend(words(s)),
        Value::Array(items) => items.iter().for_each(|v| document_words(v, out)),
        Value::Object(map) => map.values().for_each(|v| document_words(v, out)),
        _ => {}
    }
}

/// The separator of namespace segments in the database backends.
pub(crate) const NS_SEP: char = '\u{1f}';

/// A namespace as one database string; segments may not contain the separator.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn join_namespace(
    namespace: &[&str],
    operation: &'static str,
) -> Result<String, StoreError> {
    if let Some(bad) = namespace.iter().find(|s| s.contains(NS_SEP)) {
        return Err(StoreError::new(
            operation,
            format!("namespace segment {bad:?} contains the control character U+001F"),
        ));
    }
    Ok(namespace.join(&NS_SEP.to_string()))
}

/// A document read back from a database's text column.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn decode_document(text: &str, operation: &'static str) -> Result<Value, StoreError> {
    serde_json::from_str(text).map_err(|e| {
        StoreError::new(operation, format!("stored document is not JSON: {e}")).with_source(e)
    })
}

#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn split_namespace(joined: &str) -> Vec<String> {
    if joined.is_empty() {
        Vec::new()
    } else {
        joined.split(NS_SEP).map(str::to_string).collect()
    }
}

#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// When a document stored now with `ttl` expires, in milliseconds since the epoch.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn expiry(ttl: Option<std::time::Duration>) -> Option<i64> {
    ttl.map(|ttl| now_ms().saturating_add(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)))
}
