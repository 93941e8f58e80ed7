//! Vector search on Postgres without pgvector: embeddings in a `real[]` column, scored exactly
//! in SQL (`unnest` of the stored and the query vector side by side, summed in `float8`), the
//! best `limit` returned by `ORDER BY ... LIMIT`.

use sqlx::{Postgres, QueryBuilder, Row};

use super::{Metric, ScoredItem, VectorQuery, checked_prefix, scored_row};
use crate::store::StoreError;
use crate::store::postgres::{PostgresStore, error, push_conditions};
use crate::store::search::{now_ms, split_namespace};

/// The score of `a` (stored) against `b` (the query) over the unnested pairs, as
/// [`score`](super::score) computes it in Rust.
fn score_sql(metric: Metric) -> &'static str {
    match metric {
        Metric::Cosine => {
            "CASE WHEN sum(a * a) = 0 OR sum(b * b) = 0 THEN 0::float8 \
             ELSE sum(a * b) / (sqrt(sum(a * a)) * sqrt(sum(b * b))) END"
        }
        Metric::Dot => "sum(a * b)",
        Metric::L2 => "-sqrt(sum((a - b) * (a - b)))",
    }
}

impl PostgresStore {
    pub(in crate::store) async fn vector_search_inner(
        &self,
        query: &VectorQuery,
        vector: &[f32],
    ) -> Result<Vec<ScoredItem>, StoreError> {
        let prefix = checked_prefix(query, vector)?;
        let q: Vec<f64> = vector.iter().map(|x| f64::from(*x)).collect();
        let mut sql = QueryBuilder::<Postgres>::new(
            "SELECT s.namespace, s.key, s.value::text, v.score FROM agent_store s \
             CROSS JOIN LATERAL (SELECT ",
        );
        sql.push(score_sql(query.metric))
            .push(" AS score FROM unnest(s.embedding::float8[], ")
            .push_bind(q)
            .push("::float8[]) AS t(a, b)) v WHERE (s.expires_at_ms IS NULL OR s.expires_at_ms > ")
            .push_bind(now_ms())
            .push(") AND s.embedding IS NOT NULL AND cardinality(s.embedding) = ")
            .push_bind(vector.len() as i32);
        push_conditions(&mut sql, &prefix, &query.filters);
        sql.push(" ORDER BY v.score DESC, s.namespace, s.key LIMIT ")
            .push_bind(query.limit as i64);
        let rows = sql
            .build()
            .fetch_all(&self.pool)
            .await
            .map_err(error("vector_search"))?;
        rows.iter()
            .map(|row| {
                let namespace = split_namespace(row.get::<&str, _>(0));
                scored_row(namespace, row.get(1), row.get(2), row.get(3))
            })
            .collect()
    }
}
