//! [`HashEmbeddingModel`]: deterministic embeddings without a server — a **test double**.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::FutureExt;
use futures::future::BoxFuture;

use crate::embed::{EmbeddingModel, EmbeddingUsage, Embeddings, Purpose};
use crate::model::ModelError;

/// An embedding model computed in process: each word (lower-cased run of letters and digits)
/// is hashed into one of `dimensions` buckets with a sign, and the vector is normalized to
/// length 1. The same text always gets the same vector, and texts sharing words are close
/// under cosine similarity, so retrieval tests get meaningful rankings without a provider.
/// A text without words gets the zero vector.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use agentry::embed::EmbeddingModel;
/// use agentry::testing::HashEmbeddingModel;
///
/// let model = HashEmbeddingModel::new(32);
/// let a = model.embed_query("Paris hotels").await.unwrap();
/// let b = model.embed_query("hotels in Paris").await.unwrap();
/// let c = model.embed_query("tax forms").await.unwrap();
/// let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(a, b)| a * b).sum::<f32>();
/// assert!(dot(&a, &b) > dot(&a, &c));
/// assert_eq!(model.texts_embedded(), 3);
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct HashEmbeddingModel {
    dimensions: usize,
    batch_size: usize,
    calls: Arc<AtomicUsize>,
    texts: Arc<AtomicUsize>,
}

impl HashEmbeddingModel {
    /// Vectors of `dimensions` numbers (at least 1), 64 texts per batch.
    pub fn new(dimensions: usize) -> Self {
        HashEmbeddingModel {
            dimensions: dimensions.max(1),
            batch_size: 64,
            calls: Arc::default(),
            texts: Arc::default(),
        }
    }

    /// At most `n` texts per batch (at least 1).
    pub fn batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.max(1);
        self
    }

    /// How many batches were embedded (by this model and its clones).
    pub fn batches(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    /// How many texts were embedded (by this model and its clones).
    pub fn texts_embedded(&self) -> usize {
        self.texts.load(Ordering::SeqCst)
    }

    /// The vector of `text`.
    pub fn vector(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0f32; self.dimensions];
        for word in crate::store::text_words(text) {
            let h = fnv1a(word.as_bytes());
            let bucket = (h % self.dimensions as u64) as usize;
            let sign = if (h >> 63) & 1 == 0 { 1.0 } else { -1.0 };
            v[bucket] += sign;
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl EmbeddingModel for HashEmbeddingModel {
    fn provider(&self) -> &str {
        "test"
    }

    fn model_name(&self) -> &str {
        "hash-embedding"
    }

    fn dimensions(&self) -> Option<usize> {
        Some(self.dimensions)
    }

    fn max_batch_size(&self) -> usize {
        self.batch_size
    }

    fn embed_batch<'a>(
        &'a self,
        texts: &'a [String],
        _purpose: Purpose,
    ) -> BoxFuture<'a, Result<Embeddings, ModelError>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        let vectors = texts.iter().map(|t| self.vector(t)).collect();
        let tokens: usize = texts
            .iter()
            .map(|t| crate::store::text_words(t).len())
            .sum();
        async move {
            Ok(Embeddings {
                vectors,
                usage: EmbeddingUsage {
                    input_tokens: Some(tokens as u64),
                    requests: 1,
                },
            })
        }
        .boxed()
    }
}
