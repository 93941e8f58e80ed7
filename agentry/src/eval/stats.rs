//! Percentiles of a sample.

use serde::{Deserialize, Serialize};

/// Percentiles of a sample (nearest rank), and its extremes; all 0 for an empty sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    /// The smallest value.
    pub min: f64,
    /// The median.
    pub p50: f64,
    /// The 90th percentile.
    pub p90: f64,
    /// The 99th percentile.
    pub p99: f64,
    /// The largest value.
    pub max: f64,
    /// The mean.
    pub mean: f64,
}

impl Percentiles {
    /// The percentiles of `values` (NaNs are left out).
    pub fn of(values: &[f64]) -> Self {
        let mut sorted: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
        if sorted.is_empty() {
            return Percentiles::default();
        }
        sorted.sort_by(f64::total_cmp);
        let rank = |p: f64| {
            let index = (p / 100.0 * sorted.len() as f64).ceil() as usize;
            sorted[index.clamp(1, sorted.len()) - 1]
        };
        Percentiles {
            min: sorted[0],
            p50: rank(50.0),
            p90: rank(90.0),
            p99: rank(99.0),
            max: sorted[sorted.len() - 1],
            mean: sorted.iter().sum::<f64>() / sorted.len() as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Percentiles;

    #[test]
    fn nearest_rank() {
        let values: Vec<f64> = (1..=100).map(f64::from).collect();
        let p = Percentiles::of(&values);
        assert_eq!(
            (p.min, p.p50, p.p90, p.p99, p.max),
            (1.0, 50.0, 90.0, 99.0, 100.0)
        );
        assert_eq!(p.mean, 50.5);
        let one = Percentiles::of(&[7.0]);
        assert_eq!((one.p50, one.p99), (7.0, 7.0));
        assert_eq!(Percentiles::of(&[]), Percentiles::default());
    }
}
