//! [`PriceTable`] and [`ModelPrice`].

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Cost, CostError};
use crate::usage::Usage;

/// One model's prices per million tokens. Cached input, cache writes and reasoning cost the
/// input or output price unless set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// Input tokens that were neither read from nor written to the provider's cache.
    pub input: f64,
    /// Input tokens read from the cache (default: `input`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input: Option<f64>,
    /// Input tokens written to the cache (default: `input`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
    /// Output tokens that are not reasoning.
    pub output: f64,
    /// Reasoning tokens (default: `output`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<f64>,
}

impl ModelPrice {
    /// Input and output prices per million tokens; cache and reasoning cost the same.
    pub fn new(input: f64, output: f64) -> Self {
        ModelPrice {
            input,
            output,
            ..ModelPrice::default()
        }
    }

    /// The price of cached input tokens.
    pub fn cached_input(mut self, price: f64) -> Self {
        self.cached_input = Some(price);
        self
    }

    /// The price of tokens written to the cache.
    pub fn cache_write(mut self, price: f64) -> Self {
        self.cache_write = Some(price);
        self
    }

    /// The price of reasoning tokens.
    pub fn reasoning(mut self, price: f64) -> Self {
        self.reasoning = Some(price);
        self
    }

    /// What `usage` costs at these prices. Input tokens include the cached and cache-written
    /// ones, output tokens the reasoning ones (as [`Usage`] counts them).
    ///
    /// ```
    /// use agentry::cost::{Cost, ModelPrice};
    /// use agentry::Usage;
    /// let price = ModelPrice::new(1.0, 4.0).reasoning(8.0);
    /// let usage = Usage { input_tokens: 2_000_000, output_tokens: 1_000_000, reasoning_tokens: 500_000, ..Usage::default() };
    /// assert_eq!(price.cost(&usage), Cost::from_usd(2.0 + 2.0 + 4.0));
    /// ```
    pub fn cost(&self, usage: &Usage) -> Cost {
        let uncached = usage
            .input_tokens
            .saturating_sub(usage.cached_input_tokens)
            .saturating_sub(usage.cache_write_tokens);
        let answer = usage.output_tokens.saturating_sub(usage.reasoning_tokens);
        // Nano-units per token = price per million tokens × 1000.
        let part =
            |tokens: u64, per_million: f64| Cost::from_usd(tokens as f64 * per_million / 1e6);
        part(uncached, self.input)
            + part(
                usage.cached_input_tokens,
                self.cached_input.unwrap_or(self.input),
            )
            + part(
                usage.cache_write_tokens,
                self.cache_write.unwrap_or(self.input),
            )
            + part(answer, self.output)
            + part(
                usage.reasoning_tokens,
                self.reasoning.unwrap_or(self.output),
            )
    }

    fn check(&self, model: &str) -> Result<(), CostError> {
        let all = [
            Some(self.input),
            self.cached_input,
            self.cache_write,
            Some(self.output),
            self.reasoning,
        ];
        if all.into_iter().flatten().all(|p| p.is_finite() && p >= 0.0) {
            Ok(())
        } else {
            Err(CostError::InvalidPrice {
                model: model.to_owned(),
            })
        }
    }
}

/// Prices per model name. A name also prices its dated or versioned snapshots, as providers
/// report them: `gpt-4o-mini` prices `gpt-4o-mini-2024-07-18` (a `-` and a digit follow the
/// name) and `claude-3-5-sonnet@20240620`, never `gpt-4o-mini` for `gpt-4o`.
///
/// A JSON file is an object from model name to [`ModelPrice`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PriceTable {
    models: BTreeMap<String, ModelPrice>,
}

impl PriceTable {
    /// An empty table.
    pub fn new() -> Self {
        PriceTable::default()
    }

    /// The table with `model` priced at `price`.
    pub fn with(mut self, model: impl Into<String>, price: ModelPrice) -> Self {
        self.insert(model, price);
        self
    }

    /// Prices `model` at `price`, replacing an earlier price.
    pub fn insert(&mut self, model: impl Into<String>, price: ModelPrice) {
        self.models.insert(model.into(), price);
    }

    /// A table from JSON: `{"model": {"input": .., "output": .., ...}, ...}`.
    pub fn from_json(text: &str) -> Result<Self, CostError> {
        let table: PriceTable = serde_json::from_str(text).map_err(CostError::parse)?;
        for (model, price) in &table.models {
            price.check(model)?;
        }
        Ok(table)
    }

    /// A table from a JSON file (see [`from_json`](Self::from_json)).
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, CostError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| CostError::read(path, e))?;
        PriceTable::from_json(&text)
    }

    /// The price of `model`: its own entry, else that of the longest name it is a snapshot
    /// of.
    pub fn price(&self, model: &str) -> Option<&ModelPrice> {
        if let Some(price) = self.models.get(model) {
            return Some(price);
        }
        self.models
            .iter()
            .filter(|(name, _)| is_snapshot_of(model, name))
            .max_by_key(|(name, _)| name.len())
            .map(|(_, price)| price)
    }

    /// What `usage` of `model` costs, or `None` when the table has no price for it.
    pub fn cost(&self, model: &str, usage: &Usage) -> Option<Cost> {
        self.price(model).map(|p| p.cost(usage))
    }

    /// What `usage` of `model` costs, or [`CostError::Unpriced`].
    pub fn try_cost(&self, model: &str, usage: &Usage) -> Result<Cost, CostError> {
        self.cost(model, usage).ok_or_else(|| CostError::Unpriced {
            model: model.to_owned(),
        })
    }
}

/// Whether `model` is `name` followed by a date or version (`-2024-07-18`, `-0613`, `@2024`).
fn is_snapshot_of(model: &str, name: &str) -> bool {
    let Some(rest) = model.strip_prefix(name) else {
        return false;
    };
    let mut chars = rest.chars();
    match chars.next() {
        Some('@') => true,
        Some('-') => chars.next().is_some_and(|c| c.is_ascii_digit()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_match_only_after_a_version() {
        let table = PriceTable::new()
            .with("gpt-4o", ModelPrice::new(2.5, 10.0))
            .with("gpt-4o-mini", ModelPrice::new(0.15, 0.6));
        assert_eq!(table.price("gpt-4o-2024-08-06").unwrap().input, 2.5);
        assert_eq!(table.price("gpt-4o-mini-2024-07-18").unwrap().input, 0.15);
        assert!(table.price("gpt-4o-audio").is_none());
        assert!(table.price("gpt-4").is_none());
    }

    #[test]
    fn cache_and_reasoning_prices() {
        let price = ModelPrice::new(3.0, 15.0)
            .cached_input(0.3)
            .cache_write(3.75);
        let usage = Usage {
            input_tokens: 1_000_000 + 2_000_000 + 4_000_000,
            cached_input_tokens: 2_000_000,
            cache_write_tokens: 4_000_000,
            output_tokens: 100_000,
            requests: 1,
            ..Usage::default()
        };
        assert_eq!(price.cost(&usage), Cost::from_usd(3.0 + 0.6 + 15.0 + 1.5));
    }

    #[test]
    fn bad_tables_are_errors() {
        assert!(matches!(
            PriceTable::from_json(r#"{"m": {"input": -1, "output": 1}}"#),
            Err(CostError::InvalidPrice { .. })
        ));
        assert!(matches!(
            PriceTable::from_json(r#"{"m": {"input": 1, "outptu": 1}}"#),
            Err(CostError::Parse { .. })
        ));
        assert!(matches!(
            PriceTable::from_file("/nonexistent/prices.json"),
            Err(CostError::Read { .. })
        ));
    }

    #[test]
    fn a_table_that_does_not_load_keeps_the_typed_cause() {
        use std::error::Error as _;
        let err = PriceTable::from_json(r#"{"m": {"input": 1, "outptu": 1}}"#).unwrap_err();
        let serde = err
            .source()
            .and_then(|e| e.downcast_ref::<serde_json::Error>())
            .expect("serde's error as the source");
        assert!(serde.is_data(), "{serde:?}");
        assert!(
            err.to_string()
                .starts_with("invalid price table: unknown field `outptu`")
        );
        assert_eq!(err.clone(), err);

        let err = PriceTable::from_file("/nonexistent/prices.json").unwrap_err();
        let io = err
            .source()
            .and_then(|e| e.downcast_ref::<std::io::Error>())
            .expect("the io::Error as the source");
        assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    }
}
