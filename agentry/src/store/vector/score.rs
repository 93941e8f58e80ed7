//! Exact scoring of vectors and keeping the best `k`.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::Metric;

/// The score of `v` against the query `q` (same length) under `metric`, in `f64`: higher is
/// closer. Cosine similarity (0 when either vector is zero), the dot product, or the negated
/// Euclidean distance.
pub fn score(metric: Metric, q: &[f32], v: &[f32]) -> f64 {
    match metric {
        Metric::Cosine => {
            let (mut dot, mut nv, mut nq) = (0f64, 0f64, 0f64);
            for (a, b) in v.iter().zip(q) {
                let (a, b) = (f64::from(*a), f64::from(*b));
                dot += a * b;
                nv += a * a;
                nq += b * b;
            }
            if nv == 0.0 || nq == 0.0 {
                0.0
            } else {
                dot / (nv.sqrt() * nq.sqrt())
            }
        }
        Metric::Dot => v
            .iter()
            .zip(q)
            .map(|(a, b)| f64::from(*a) * f64::from(*b))
            .sum(),
        Metric::L2 => {
            let sum: f64 = v
                .iter()
                .zip(q)
                .map(|(a, b)| {
                    let d = f64::from(*a) - f64::from(*b);
                    d * d
                })
                .sum();
            -sum.sqrt()
        }
    }
}

/// One candidate: its score, the tie-break (namespace, key: smaller first) and what to return.
struct Entry<T> {
    score: f64,
    namespace: Vec<String>,
    key: String,
    payload: T,
}

impl<T> Entry<T> {
    /// Better first: a higher score, then the smaller namespace and key.
    fn rank(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then_with(|| other.namespace.cmp(&self.namespace))
            .then_with(|| other.key.cmp(&self.key))
    }
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        self.rank(other) == Ordering::Equal
    }
}
impl<T> Eq for Entry<T> {}
impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Entry<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank(other)
    }
}

/// The `k` best candidates seen, in memory proportional to `k`.
pub(crate) struct TopK<T> {
    k: usize,
    heap: BinaryHeap<Reverse<Entry<T>>>,
}

impl<T> TopK<T> {
    pub(crate) fn new(k: usize) -> Self {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k.saturating_add(1)),
        }
    }

    /// Whether a candidate scoring `score` might enter (cheap check before building it).
    pub(crate) fn admits(&self, score: f64) -> bool {
        if self.k == 0 || score.is_nan() {
            return false;
        }
        match self.heap.peek() {
            Some(Reverse(worst)) if self.heap.len() >= self.k => score >= worst.score,
            _ => true,
        }
    }

    pub(crate) fn push(&mut self, score: f64, namespace: Vec<String>, key: String, payload: T) {
        if !self.admits(score) {
            return;
        }
        self.heap.push(Reverse(Entry {
            score,
            namespace,
            key,
            payload,
        }));
        if self.heap.len() > self.k {
            self.heap.pop();
        }
    }

    /// The candidates kept, best first: `(score, namespace, key, payload)`.
    pub(crate) fn into_sorted(self) -> Vec<(f64, Vec<String>, String, T)> {
        let mut all: Vec<Entry<T>> = self.heap.into_iter().map(|Reverse(e)| e).collect();
        all.sort_by(|a, b| b.rank(a));
        all.into_iter()
            .map(|e| (e.score, e.namespace, e.key, e.payload))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics() {
        let q = [1.0, 0.0];
        assert!((score(Metric::Cosine, &q, &[2.0, 0.0]) - 1.0).abs() < 1e-12);
        assert_eq!(score(Metric::Cosine, &q, &[0.0, 0.0]), 0.0);
        assert_eq!(score(Metric::Dot, &q, &[3.0, 4.0]), 3.0);
        assert_eq!(score(Metric::L2, &q, &[1.0, 1.0]), -1.0);
    }

    #[test]
    fn keeps_best_k_with_ties_by_key() {
        let mut top = TopK::new(2);
        for (s, k) in [(0.5, "c"), (0.9, "a"), (0.5, "b"), (0.1, "d")] {
            top.push(s, vec![], k.to_string(), ());
        }
        let keys: Vec<String> = top.into_sorted().into_iter().map(|e| e.2).collect();
        assert_eq!(keys, ["a", "b"]);
    }
}
