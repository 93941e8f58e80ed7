//! Vector search on SQLite: the candidates' embeddings (little-endian `f32` blobs) streamed
//! from the database and scored exactly in Rust, the best `limit` kept.

use futures::TryStreamExt;
use sqlx::{QueryBuilder, Row, Sqlite};

use super::score::TopK;
use super::{ScoredItem, VectorQuery, checked_prefix, score_blob, scored_row};
use crate::store::StoreError;
use crate::store::search::split_namespace;
use crate::store::sqlite::{SqliteStore, error, push_conditions};

impl SqliteStore {
    pub(in crate::store) async fn vector_search_inner(
        &self,
        query: &VectorQuery,
        vector: &[f32],
    ) -> Result<Vec<ScoredItem>, StoreError> {
        let prefix = checked_prefix(query, vector)?;
        let mut sql = QueryBuilder::<Sqlite>::new(
            "SELECT s.namespace, s.key, s.value, s.embedding FROM agent_store s",
        );
        push_conditions(&mut sql, &prefix, &query.filters);
        sql.push(" AND s.embedding IS NOT NULL AND length(s.embedding) = ")
            .push_bind((vector.len() * 4) as i64);
        let mut top = TopK::new(query.limit);
        let mut rows = sql.build().fetch(&self.pool);
        while let Some(row) = rows.try_next().await.map_err(error("vector_search"))? {
            let Some(score) = score_blob(query.metric, vector, row.get::<&[u8], _>(3)) else {
                continue;
            };
            if top.admits(score) {
                top.push(
                    score,
                    split_namespace(row.get::<&str, _>(0)),
                    row.get(1),
                    row.get::<String, _>(2),
                );
            }
        }
        top.into_sorted()
            .into_iter()
            .map(|(score, namespace, key, text)| scored_row(namespace, key, &text, score))
            .collect()
    }
}
