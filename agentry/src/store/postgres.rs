//! The Postgres store backend: documents as `jsonb`, a generated `tsvector` over their strings.

use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;
use sqlx::{PgPool, Postgres, QueryBuilder, Row};

use super::search::{
    Filter, FilterOp, SearchItem, SearchQuery, decode_document, expiry, join_namespace, now_ms,
    split_namespace,
};
use super::{StoreBackend, StoreError};
use crate::persist::sql::connect_postgres;

/// A store in a Postgres database, sharing the schema of the
/// [`PostgresCheckpointer`](crate::persist::PostgresCheckpointer): documents are `jsonb`
/// (GIN-indexed), full-text search uses a generated `tsvector` (the `simple` configuration).
#[derive(Clone, Debug)]
pub struct PostgresStore {
    pub(super) pool: PgPool,
}

/// A failed open, with the checkpointer's typed reason (not a database, a table of ours with
/// another shape) in the text and as the source.
fn open_error(operation: &'static str) -> impl Fn(crate::persist::PersistError) -> StoreError {
    move |e| StoreError::new(operation, e.to_string()).with_source(e)
}

pub(super) fn error(operation: &'static str) -> impl Fn(sqlx::Error) -> StoreError {
    move |e| StoreError::new(operation, e.to_string()).with_source(e)
}

impl PostgresStore {
    /// Connects to the database at `url` and brings its schema up to date.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let pool = connect_postgres(url).await.map_err(open_error("connect"))?;
        Ok(PostgresStore { pool })
    }

    /// A store over an existing pool whose schema is up to date: run
    /// [`migrate`](crate::persist::migrate) on the pool first (see
    /// [`connect`](Self::connect)).
    pub fn from_pool(pool: PgPool) -> Self {
        PostgresStore { pool }
    }

    /// Deletes the documents whose time to live has passed; returns how many.
    pub async fn purge_expired(&self) -> Result<u64, StoreError> {
        Ok(
            sqlx::query("DELETE FROM agent_store WHERE expires_at_ms <= $1")
                .bind(now_ms())
                .execute(&self.pool)
                .await
                .map_err(error("purge_expired"))?
                .rows_affected(),
        )
    }

    /// Inserts or replaces a row; its embedding is replaced too (cleared when `None`).
    async fn put_row(
        &self,
        namespace: &[&str],
        key: &str,
        value: Value,
        ttl: Option<Duration>,
        embedding: Option<Vec<f32>>,
    ) -> Result<(), StoreError> {
        let ns = join_namespace(namespace, "put")?;
        let now = now_ms();
        sqlx::query(
            "INSERT INTO agent_store (namespace, key, value, created_at_ms, updated_at_ms, expires_at_ms, embedding)
             VALUES ($1, $2, $3::jsonb, $4, $4, $5, $6)
             ON CONFLICT (namespace, key) DO UPDATE
             SET value = excluded.value, updated_at_ms = excluded.updated_at_ms,
                 expires_at_ms = excluded.expires_at_ms, embedding = excluded.embedding",
        )
        .bind(ns)
        .bind(key)
        .bind(value.to_string())
        .bind(now)
        .bind(expiry(ttl))
        .bind(embedding)
        .execute(&self.pool)
        .await
        .map_err(error("put"))?;
        Ok(())
    }

    async fn search_inner(&self, query: &SearchQuery) -> Result<Vec<SearchItem>, StoreError> {
        query.validate()?;
        let prefix = join_namespace(
            &query
                .namespace_prefix
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            "search",
        )?;
        let words = query.words();
        let mut sql = QueryBuilder::<Postgres>::new(
            "SELECT s.namespace, s.key, s.value::text FROM agent_store s",
        );
        if !words.is_empty() {
            // The query's words, all required; no tsquery syntax reaches the server.
            sql.push(", plainto_tsquery('simple', ")
                .push_bind(words.join(" "))
                .push(") q");
        }
        sql.push(" WHERE (s.expires_at_ms IS NULL OR s.expires_at_ms > ")
            .push_bind(now_ms())
            .push(")");
        if !words.is_empty() {
            sql.push(" AND s.search @@ q");
        }
        push_conditions(&mut sql, &prefix, &query.filters);
        if words.is_empty() {
            sql.push(" ORDER BY s.namespace, s.key");
        } else {
            sql.push(" ORDER BY ts_rank(s.search, q) DESC, s.namespace, s.key");
        }
        sql.push(" LIMIT ")
            .push_bind(query.limit as i64)
            .push(" OFFSET ")
            .push_bind(i64::try_from(query.offset).unwrap_or(i64::MAX));
        let rows = sql
            .build()
            .fetch_all(&self.pool)
            .await
            .map_err(error("search"))?;
        rows.iter()
            .map(|row| {
                Ok(SearchItem {
                    namespace: split_namespace(row.get::<&str, _>(0)),
                    key: row.get(1),
                    value: decode_document(row.get::<&str, _>(2), "search")?,
                })
            })
            .collect()
    }
}

/// ` AND` the row is under `prefix` (joined) and matches every filter (on `s.value`).
pub(super) fn push_conditions(
    sql: &mut QueryBuilder<'_, Postgres>,
    prefix: &str,
    filters: &[Filter],
) {
    if !prefix.is_empty() {
        sql.push(" AND (s.namespace = ")
            .push_bind(prefix.to_owned())
            .push(" OR starts_with(s.namespace, ")
            .push_bind(format!("{prefix}\u{1f}"))
            .push("))");
    }
    for filter in filters {
        let path = filter.path.clone();
        sql.push(" AND ");
        match (&filter.value, filter.op) {
            (Value::Number(n), op) if op != FilterOp::Eq => {
                sql.push("CASE WHEN jsonb_typeof(s.value #> ")
                    .push_bind(path.clone())
                    .push(") = 'number' THEN (s.value #>> ")
                    .push_bind(path)
                    .push(format!(")::float8 {} ", op.sql()))
                    .push_bind(n.as_f64().unwrap_or(f64::NAN))
                    .push(" ELSE false END");
            }
            (value, _) => {
                sql.push("s.value #> ")
                    .push_bind(path)
                    .push(" = ")
                    .push_bind(value.to_string())
                    .push("::jsonb");
            }
        }
    }
}

impl StoreBackend for PostgresStore {
    fn get<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        async move {
            let ns = join_namespace(namespace, "get")?;
            let text: Option<String> = sqlx::query_scalar(
                "SELECT value::text FROM agent_store WHERE namespace = $1 AND key = $2
                   AND (expires_at_ms IS NULL OR expires_at_ms > $3)",
            )
            .bind(ns)
            .bind(key)
            .bind(now_ms())
            .fetch_optional(&self.pool)
            .await
            .map_err(error("get"))?;
            text.map(|t| decode_document(&t, "get")).transpose()
        }
        .boxed()
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
        self.put_row(namespace, key, value, ttl, None).boxed()
    }

    fn put_embedded<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
        value: Value,
        ttl: Option<Duration>,
        embedding: Vec<f32>,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        async move {
            super::vector::check_vector(&embedding, "put")?;
            self.put_row(namespace, key, value, ttl, Some(embedding))
                .await
        }
        .boxed()
    }

    fn vector_search<'a>(
        &'a self,
        query: &'a super::VectorQuery,
        vector: &'a [f32],
    ) -> BoxFuture<'a, Result<Vec<super::ScoredItem>, StoreError>> {
        self.vector_search_inner(query, vector).boxed()
    }

    fn delete<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        async move {
            let ns = join_namespace(namespace, "delete")?;
            let live: Option<bool> = sqlx::query_scalar(
                "DELETE FROM agent_store WHERE namespace = $1 AND key = $2
                 RETURNING expires_at_ms IS NULL OR expires_at_ms > $3",
            )
            .bind(ns)
            .bind(key)
            .bind(now_ms())
            .fetch_optional(&self.pool)
            .await
            .map_err(error("delete"))?;
            Ok(live == Some(true))
        }
        .boxed()
    }

    fn list<'a>(
        &'a self,
        namespace: &'a [&'a str],
    ) -> BoxFuture<'a, Result<Vec<(String, Value)>, StoreError>> {
        async move {
            let ns = join_namespace(namespace, "list")?;
            let rows = sqlx::query(
                "SELECT key, value::text FROM agent_store WHERE namespace = $1
                   AND (expires_at_ms IS NULL OR expires_at_ms > $2) ORDER BY key",
            )
            .bind(ns)
            .bind(now_ms())
            .fetch_all(&self.pool)
            .await
            .map_err(error("list"))?;
            rows.iter()
                .map(|r| Ok((r.get(0), decode_document(r.get::<&str, _>(1), "list")?)))
                .collect()
        }
        .boxed()
    }

    fn search<'a>(
        &'a self,
        query: &'a SearchQuery,
    ) -> BoxFuture<'a, Result<Vec<SearchItem>, StoreError>> {
        self.search_inner(query).boxed()
    }
}
