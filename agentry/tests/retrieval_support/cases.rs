//! The vector-search cases, run against every store backend.

use std::collections::BTreeSet;

use agentry::Store;
use agentry::store::{Filter, Metric, ScoredItem, StoreIndex, VectorQuery};
use agentry::testing::HashEmbeddingModel;
use serde_json::json;

fn keys(items: &[ScoredItem]) -> Vec<String> {
    items.iter().map(|i| i.key.clone()).collect()
}

/// A deterministic generator (64-bit LCG) of vectors with components in [-1, 1).
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Self {
        Lcg(seed)
    }
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
    pub fn vector(&mut self, dims: usize) -> Vec<f32> {
        (0..dims).map(|_| self.next()).collect()
    }
}

/// The hand-written reference: cosine similarity in f64, every vector scored, the best `k`
/// by score then key.
pub fn brute_force(corpus: &[(String, Vec<f32>)], q: &[f32], k: usize) -> Vec<String> {
    let mut scored: Vec<(f64, &String)> = corpus
        .iter()
        .map(|(key, v)| {
            let mut dot = 0f64;
            let mut nv = 0f64;
            let mut nq = 0f64;
            for i in 0..q.len() {
                let (a, b) = (f64::from(v[i]), f64::from(q[i]));
                dot += a * b;
                nv += a * a;
                nq += b * b;
            }
            (dot / (nv.sqrt() * nq.sqrt()), key)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.into_iter().take(k).map(|(_, k)| k.clone()).collect()
}

pub async fn text_search_ranks_filters_and_follows_writes(plain: &Store) {
    let model = HashEmbeddingModel::new(128);
    let store = plain
        .clone()
        .with_index(StoreIndex::new(model.clone()).field(["text"]));
    let docs = [
        (
            vec!["kb", "travel"],
            "paris",
            "Hotels in Paris near the Seine river",
            2021,
        ),
        (
            vec!["kb", "travel"],
            "rome",
            "Cheap hotels in Rome near the Colosseum",
            2019,
        ),
        (
            vec!["kb", "tax"],
            "forms",
            "How to file tax forms online",
            2022,
        ),
        (
            vec!["kb", "tax"],
            "deadline",
            "The tax deadline is in April",
            2023,
        ),
        (vec!["other"], "paris2", "Paris hotels river view", 2024),
    ];
    for (ns, key, text, year) in &docs {
        store
            .put(ns, key, json!({"text": text, "year": year}))
            .await
            .unwrap();
    }
    assert_eq!(model.texts_embedded(), 5);

    let hits = store
        .vector_search(&VectorQuery::text(&["kb"], "Paris hotels river").limit(2))
        .await
        .unwrap();
    assert_eq!(keys(&hits), ["paris", "rome"]);
    assert!(hits[0].score > hits[1].score);
    assert_eq!(hits[0].namespace, ["kb", "travel"]);
    assert_eq!(hits[0].value["year"], 2021);

    // The namespace prefix, and every backend's filters.
    let taxes = store
        .vector_search(&VectorQuery::text(&["kb", "tax"], "Paris hotels river"))
        .await
        .unwrap();
    assert_eq!(
        keys(&taxes).into_iter().collect::<BTreeSet<_>>(),
        BTreeSet::from(["deadline".to_string(), "forms".to_string()])
    );
    let recent = store
        .vector_search(
            &VectorQuery::text(&[], "Paris hotels river")
                .filter(Filter::gte(["year"], 2022.0))
                .limit(1),
        )
        .await
        .unwrap();
    assert_eq!(keys(&recent), ["paris2"]);

    // Dot and L2 rank these normalized vectors like cosine.
    for metric in [Metric::Dot, Metric::L2] {
        let hits = store
            .vector_search(
                &VectorQuery::text(&["kb"], "tax deadline April")
                    .metric(metric)
                    .limit(1),
            )
            .await
            .unwrap();
        assert_eq!(keys(&hits), ["deadline"], "{metric:?}");
    }

    // A plain put (no index) replaces the document and drops its embedding; delete removes it.
    plain
        .put(
            &["kb", "travel"],
            "paris",
            json!({"text": "Hotels in Paris"}),
        )
        .await
        .unwrap();
    store.delete(&["kb", "travel"], "rome").await.unwrap();
    // A document with nothing to embed is stored without an embedding.
    let embedded = model.texts_embedded();
    store
        .put(
            &["kb", "travel"],
            "empty",
            json!({"title": "no text field"}),
        )
        .await
        .unwrap();
    assert_eq!(model.texts_embedded(), embedded);
    let hits = store
        .vector_search(&VectorQuery::text(&["kb", "travel"], "Paris hotels river"))
        .await
        .unwrap();
    assert!(hits.is_empty(), "{hits:?}");
    assert!(
        store
            .get(&["kb", "travel"], "empty")
            .await
            .unwrap()
            .is_some()
    );

    // Only vectors of the query's length are candidates.
    let other_len = store
        .vector_search(&VectorQuery::vector(&[], vec![1.0; 7]))
        .await
        .unwrap();
    assert!(other_len.is_empty());
}

pub async fn bad_vector_input_is_a_store_error(store: &Store) {
    let err = store
        .vector_search(&VectorQuery::text(&[], "no index"))
        .await
        .unwrap_err();
    assert!(err.reason.contains("index"), "{err}");
    for bad in [vec![], vec![f32::NAN, 1.0], vec![f32::INFINITY]] {
        assert!(
            store
                .vector_search(&VectorQuery::vector(&[], bad.clone()))
                .await
                .is_err()
        );
        assert!(
            store
                .put_with_embedding(&["a"], "k", json!({}), bad)
                .await
                .is_err()
        );
    }
    assert!(
        store
            .vector_search(&VectorQuery::vector(&[], vec![1.0]).limit(0))
            .await
            .is_err()
    );
}

/// Exact search finds exactly the brute-force top 10 over a few thousand random vectors.
pub async fn recall_against_brute_force_is_exact(store: &Store) {
    const N: usize = 2000;
    const DIMS: usize = 24;
    let mut rng = Lcg::new(7);
    let corpus: Vec<(String, Vec<f32>)> = (0..N)
        .map(|i| (format!("doc{i:05}"), rng.vector(DIMS)))
        .collect();
    for (key, v) in &corpus {
        store
            .put_with_embedding(&["recall"], key, json!({ "key": key }), v.clone())
            .await
            .unwrap();
    }
    for _ in 0..10 {
        let q = rng.vector(DIMS);
        let hits = store
            .vector_search(&VectorQuery::vector(&["recall"], q.clone()).limit(10))
            .await
            .unwrap();
        assert_eq!(keys(&hits), brute_force(&corpus, &q, 10));
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    }
}

pub async fn put_many_embeds_in_batches(plain: &Store) {
    let model = HashEmbeddingModel::new(32).batch_size(16);
    let store = plain
        .clone()
        .with_index(StoreIndex::new(model.clone()).field(["text"]));
    // 40 documents with text and 2 without: 40 texts in batches of 16 are 3 requests.
    let mut docs: Vec<(String, serde_json::Value)> = (0..40)
        .map(|i| {
            (
                format!("d{i:02}"),
                json!({ "text": format!("note number {i} about topic {}", i % 5) }),
            )
        })
        .collect();
    docs.push(("plain1".into(), json!({ "n": 1 })));
    docs.insert(7, ("plain0".into(), json!({ "text": "   " })));
    store.put_many(&["bulk"], docs).await.unwrap();
    assert_eq!(model.batches(), 3);
    assert_eq!(model.texts_embedded(), 40);
    assert_eq!(store.list(&["bulk"]).await.unwrap().len(), 42);

    // Every document got its own vector (the order survived the batching), and the ones
    // without text are stored but not found by vector search.
    let q = model.vector("note number 23 about topic 3");
    let hits = store
        .vector_search(&VectorQuery::vector(&["bulk"], q).limit(50))
        .await
        .unwrap();
    assert_eq!(hits.len(), 40);
    assert_eq!(hits[0].key, "d23");
    assert!(hits.iter().all(|h| !h.key.starts_with("plain")));
    for hit in &hits {
        let text = hit.value["text"].as_str().unwrap();
        let exact = agentry::store::score(
            Metric::Cosine,
            &model.vector(text),
            &model.vector("note number 23 about topic 3"),
        );
        assert!(
            (hit.score - exact).abs() < 1e-4,
            "{}: {} vs {exact}",
            hit.key,
            hit.score
        );
    }

    // No index: a plain bulk write, nothing embedded.
    plain
        .put_many(&["bulk", "raw"], vec![("a".into(), json!({ "text": "x" }))])
        .await
        .unwrap();
    assert_eq!(model.batches(), 3);
    assert_eq!(
        plain.get(&["bulk", "raw"], "a").await.unwrap(),
        Some(json!({ "text": "x" }))
    );
}
