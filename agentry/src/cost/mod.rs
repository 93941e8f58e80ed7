//! What runs cost: a [`PriceTable`] of per-model prices, and [`Cost`], an exact amount.
//!
//! Prices are per million tokens, in one currency of your choice (USD by convention), for
//! uncached input, cached input (cache reads), cache writes, output and reasoning. The table
//! is yours to supply — prices change, and this crate ships none — in code or from a JSON
//! file:
//!
//! ```
//! use agentry::cost::{Cost, ModelPrice, PriceTable};
//! use agentry::Usage;
//!
//! let prices = PriceTable::from_json(r#"{
//!     "gpt-4o-mini": { "input": 0.15, "cached_input": 0.075, "output": 0.60 },
//!     "claude-sonnet-4": { "input": 3.0, "cached_input": 0.30, "cache_write": 3.75, "output": 15.0 }
//! }"#).unwrap();
//! let usage = Usage { input_tokens: 1_000_000, cached_input_tokens: 400_000, output_tokens: 10_000, requests: 1, ..Usage::default() };
//! // 600k uncached × 0.15 + 400k cached × 0.075 + 10k out × 0.60, per million:
//! let cost = prices.cost("gpt-4o-mini-2024-07-18", &usage).unwrap();
//! assert_eq!(cost, Cost::from_usd(0.09 + 0.03 + 0.006));
//! assert_eq!(cost.to_string(), "$0.126000");
//! ```
//!
//! A run reports its cost with [`RunResult::cost`](crate::agent::RunResult::cost), a
//! [`UsageTracker`](crate::model::UsageTracker) with
//! [`cost`](crate::model::UsageTracker::cost), and
//! [`AgentBuilder::max_cost`](crate::agent::AgentBuilder::max_cost) stops a run whose cost
//! reaches a limit.

mod amount;
mod error;
mod table;

pub use amount::Cost;
pub use error::CostError;
pub use table::{ModelPrice, PriceTable};

/// What one answer cost: priced by the model that answered (`answered`), else by the model
/// that was asked (`asked`).
pub(crate) fn charge(
    prices: &PriceTable,
    answered: &str,
    asked: &str,
    usage: &crate::usage::Usage,
) -> Result<Cost, CostError> {
    prices
        .cost(answered, usage)
        .or_else(|| prices.cost(asked, usage))
        .ok_or_else(|| CostError::Unpriced {
            model: if answered.is_empty() { asked } else { answered }.to_owned(),
        })
}
