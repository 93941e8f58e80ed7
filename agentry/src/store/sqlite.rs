//! The SQLite store backend: documents as JSON text, an FTS5 index over their strings.

use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;
use sqlx::{QueryBuilder, Row, Sqlite, SqlitePool};

use super::search::{
    Filter, FilterOp, SearchItem, SearchQuery, decode_document, expiry, join_namespace, now_ms,
    split_namespace,
};
use super::{StoreBackend, StoreError};
use crate::persist::sql::open_sqlite;

/// A store in a SQLite database file (WAL mode, `synchronous = NORMAL`), sharing the schema of
/// the [`SqliteCheckpointer`](crate::persist::SqliteCheckpointer): one file can hold both.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    pub(super) pool: SqlitePool,
}

/// A failed open, with the checkpointer's typed reason (not a database, a table of ours with
/// another shape) in the text and as the source.
fn open_error(operation: &'static str) -> impl Fn(crate::persist::PersistError) -> StoreError {
    move |e| StoreError::new(operation, e.to_string()).with_source(e)
}

pub(super) fn error(operation: &'static str) -> impl Fn(sqlx::Error) -> StoreError {
    move |e| StoreError::new(operation, e.to_string()).with_source(e)
}

impl SqliteStore {
    /// Opens the database at `path` (created when missing) and brings its schema up to date.
    /// A file that holds another program's tables and none of ours is refused (see
    /// [`PersistError::ForeignTables`](crate::persist::PersistError::ForeignTables)); use
    /// [`open_shared`](Self::open_shared) for it.
    pub fn open(path: impl AsRef<Path>) -> BoxFuture<'static, Result<Self, StoreError>> {
        // Not an `async fn`: the returned future's type does not name `path`, so a path of
        // the wrong type is one error at the call, not one more at each `.await`.
        Self::open_path(path.as_ref().to_owned(), false).boxed()
    }

    /// [`open`](Self::open) a database that other programs use too (an application's own
    /// database): our tables are added beside theirs even when none of ours is there yet.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use agentry::store::SqliteStore;
    /// use sqlx::Connection;
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("app.db");
    /// let url = format!("sqlite://{}?mode=rwc", path.display());
    /// let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    /// sqlx::query("CREATE TABLE invoices (id INTEGER PRIMARY KEY)").execute(&mut conn).await.unwrap();
    ///
    /// assert!(SqliteStore::open(&path).await.is_err()); // not without asking
    /// SqliteStore::open_shared(&path).await.unwrap();
    /// # }
    /// ```
    pub fn open_shared(path: impl AsRef<Path>) -> BoxFuture<'static, Result<Self, StoreError>> {
        Self::open_path(path.as_ref().to_owned(), true).boxed()
    }

    async fn open_path(path: PathBuf, shared: bool) -> Result<Self, StoreError> {
        let pool = open_sqlite(&path, shared)
            .await
            .map_err(open_error("open"))?;
        Ok(SqliteStore { pool })
    }

    /// A store over an existing pool whose schema is up to date: run
    /// [`migrate`](crate::persist::migrate) on the pool first (see [`open`](Self::open)).
    pub fn from_pool(pool: SqlitePool) -> Self {
        SqliteStore { pool }
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
        embedding: Option<&[f32]>,
    ) -> Result<(), StoreError> {
        let ns = join_namespace(namespace, "put")?;
        let now = now_ms();
        sqlx::query(
            "INSERT INTO agent_store (namespace, key, value, created_at_ms, updated_at_ms, expires_at_ms, embedding)
             VALUES ($1, $2, $3, $4, $4, $5, $6)
             ON CONFLICT (namespace, key) DO UPDATE
             SET value = excluded.value, updated_at_ms = excluded.updated_at_ms,
                 expires_at_ms = excluded.expires_at_ms, embedding = excluded.embedding",
        )
        .bind(ns)
        .bind(key)
        .bind(value.to_string())
        .bind(now)
        .bind(expiry(ttl))
        .bind(embedding.map(super::vector::to_blob))
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
        let mut sql =
            QueryBuilder::<Sqlite>::new("SELECT s.namespace, s.key, s.value FROM agent_store s");
        if !words.is_empty() {
            sql.push(" JOIN agent_store_fts f ON f.rowid = s.rowid AND agent_store_fts MATCH ");
            // Each word as an FTS5 string: no query syntax reaches the index, all must occur.
            let fts: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
            sql.push_bind(fts.join(" "));
        }
        push_conditions(&mut sql, &prefix, &query.filters);
        if words.is_empty() {
            sql.push(" ORDER BY s.namespace, s.key");
        } else {
            sql.push(" ORDER BY bm25(agent_store_fts), s.namespace, s.key");
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

/// ` WHERE` the row is live, under `prefix` (joined) and matches every filter (on `s.value`).
pub(super) fn push_conditions(
    sql: &mut QueryBuilder<'_, Sqlite>,
    prefix: &str,
    filters: &[Filter],
) {
    sql.push(" WHERE (s.expires_at_ms IS NULL OR s.expires_at_ms > ")
        .push_bind(now_ms())
        .push(")");
    if !prefix.is_empty() {
        sql.push(" AND (s.namespace = ")
            .push_bind(prefix.to_owned())
            .push(" OR substr(s.namespace, 1, ")
            .push_bind(prefix.chars().count() as i64 + 1)
            .push(") = ")
            .push_bind(format!("{prefix}\u{1f}"))
            .push(")");
    }
    for filter in filters {
        let path = format!(
            "$.{}",
            filter
                .path
                .iter()
                .map(|k| format!("\"{k}\""))
                .collect::<Vec<_>>()
                .join(".")
        );
        sql.push(" AND ");
        match (&filter.value, filter.op) {
            (Value::String(s), _) => {
                sql.push("json_type(s.value, ")
                    .push_bind(path.clone())
                    .push(") = 'text' AND json_extract(s.value, ")
                    .push_bind(path)
                    .push(") = ")
                    .push_bind(s.clone());
            }
            (Value::Number(n), op) => {
                sql.push("json_type(s.value, ")
                    .push_bind(path.clone())
                    .push(") IN ('integer', 'real') AND json_extract(s.value, ")
                    .push_bind(path)
                    .push(format!(") {} ", op.sql()))
                    .push_bind(n.as_f64().unwrap_or(f64::NAN));
            }
            (Value::Bool(b), FilterOp::Eq) => {
                sql.push("json_type(s.value, ")
                    .push_bind(path)
                    .push(format!(") = '{b}'"));
            }
            _ => {
                sql.push("json_type(s.value, ")
                    .push_bind(path)
                    .push(") = 'null'");
            }
        }
    }
}

impl StoreBackend for SqliteStore {
    fn get<'a>(
        &'a self,
        namespace: &'a [&'a str],
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Value>, StoreError>> {
        async move {
            let ns = join_namespace(namespace, "get")?;
            let text: Option<String> = sqlx::query_scalar(
                "SELECT value FROM agent_store WHERE namespace = $1 AND key = $2
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
            self.put_row(namespace, key, value, ttl, Some(&embedding))
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
            let live: Option<i64> = sqlx::query_scalar(
                "DELETE FROM agent_store WHERE namespace = $1 AND key = $2
                 RETURNING expires_at_ms IS NULL OR expires_at_ms > $3",
            )
            .bind(ns)
            .bind(key)
            .bind(now_ms())
            .fetch_optional(&self.pool)
            .await
            .map_err(error("delete"))?;
            Ok(live == Some(1))
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
                "SELECT key, value FROM agent_store WHERE namespace = $1
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
