//! Exact vector search over 10,000 vectors of 384 dimensions (top 10, cosine) in each store
//! backend, against a hand-written baseline in the same run: a loop over a `Vec<Vec<f32>>`
//! scoring every vector in `f64` and selecting the best 10 (`select_nth_unstable_by`).
//!
//! The in-memory store pays for its lock, the namespace check and the JSON value kept with
//! each vector; SQLite streams every candidate's blob from the database and scores it in Rust;
//! Postgres scores in SQL (`unnest` over a `real[]` column, no pgvector).
//!
//! Run: `cargo bench -p agentry --features testing,sqlite,postgres --bench vector_search`.

mod support;

use std::time::Duration;

use agentry::Store;
use agentry::store::VectorQuery;
use agentry::testing::PostgresServer;
use criterion::Criterion;
use serde_json::json;
use tokio::runtime::Runtime;

const N: usize = 10_000;
const DIMS: usize = 384;
const K: usize = 10;

struct Lcg(u64);

impl Lcg {
    fn vector(&mut self) -> Vec<f32> {
        (0..DIMS)
            .map(|_| {
                self.0 = self
                    .0
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
            })
            .collect()
    }
}

/// The baseline: every vector scored (cosine, f64), the best `K` selected then sorted.
fn brute_force(corpus: &[Vec<f32>], q: &[f32]) -> Vec<usize> {
    let mut scored: Vec<(f64, usize)> = corpus
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let (mut dot, mut nv, mut nq) = (0f64, 0f64, 0f64);
            for (a, b) in v.iter().zip(q) {
                let (a, b) = (f64::from(*a), f64::from(*b));
                dot += a * b;
                nv += a * a;
                nq += b * b;
            }
            (dot / (nv.sqrt() * nq.sqrt()), i)
        })
        .collect();
    let by_score = |a: &(f64, usize), b: &(f64, usize)| b.0.total_cmp(&a.0);
    scored.select_nth_unstable_by(K - 1, by_score);
    scored.truncate(K);
    scored.sort_by(by_score);
    scored.into_iter().map(|(_, i)| i).collect()
}

async fn fill(store: &Store, corpus: &[Vec<f32>]) {
    for (i, v) in corpus.iter().enumerate() {
        store
            .put_with_embedding(
                &["bench"],
                &format!("doc{i:05}"),
                json!({ "i": i }),
                v.clone(),
            )
            .await
            .expect("put");
    }
}

fn main() {
    let rt = Runtime::new().expect("runtime");
    let mut rng = Lcg(42);
    let corpus: Vec<Vec<f32>> = (0..N).map(|_| rng.vector()).collect();
    let query = rng.vector();

    let memory = Store::in_memory();
    rt.block_on(fill(&memory, &corpus));
    let dir = tempfile::tempdir().expect("temp dir");
    let sqlite = rt
        .block_on(Store::sqlite(dir.path().join("bench.db")))
        .expect("sqlite");
    rt.block_on(fill(&sqlite, &corpus));
    let server = PostgresServer::start().unwrap_or_else(|e| panic!("{e}"));
    let url = server.create_database().unwrap_or_else(|e| panic!("{e}"));
    let postgres = rt.block_on(Store::postgres(&url)).expect("postgres");
    rt.block_on(fill(&postgres, &corpus));

    // Every backend returns the baseline's answer.
    let expected: Vec<String> = brute_force(&corpus, &query)
        .into_iter()
        .map(|i| format!("doc{i:05}"))
        .collect();
    let q = VectorQuery::vector(&["bench"], query.clone()).limit(K);
    for store in [&memory, &sqlite, &postgres] {
        let hits = rt.block_on(store.vector_search(&q)).expect("search");
        let keys: Vec<String> = hits.into_iter().map(|h| h.key).collect();
        assert_eq!(keys, expected);
    }

    let mut c = Criterion::default()
        .sample_size(20)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1))
        .configure_from_args();
    let group_name = "vector_search_10k";
    let mut group = c.benchmark_group(group_name);
    group.bench_function("baseline_loop", |b| {
        b.iter(|| brute_force(std::hint::black_box(&corpus), &query))
    });
    for (name, store) in [
        ("memory", &memory),
        ("sqlite", &sqlite),
        ("postgres", &postgres),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| rt.block_on(store.vector_search(&q)).expect("search"))
        });
    }
    group.finish();
    c.final_summary();
    for name in ["memory", "sqlite", "postgres"] {
        support::print_ratio(
            group_name,
            name,
            "baseline_loop",
            f64::INFINITY,
            "exact top-10 over 10k x 384 vectors",
        );
    }
}
