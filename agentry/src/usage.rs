//! Token usage.

use std::fmt;
use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

/// Tokens and requests spent, as reported by the provider.
///
/// Usage adds up, so a run's total is the sum of its requests:
///
/// ```
/// use agentry::Usage;
/// let a = Usage { input_tokens: 10, output_tokens: 2, requests: 1, ..Usage::default() };
/// let b = Usage { input_tokens: 30, output_tokens: 5, cached_input_tokens: 20, requests: 1, ..Usage::default() };
/// let total = a + b;
/// assert_eq!(total.input_tokens, 40);
/// assert_eq!(total.total_tokens(), 47);
/// assert_eq!(total.to_string(), "2 requests, 40 input tokens (20 cached), 7 output tokens");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens, including cached ones.
    #[serde(default)]
    pub input_tokens: u64,
    /// Completion tokens, including reasoning tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Prompt tokens served from the provider's cache (a subset of `input_tokens`).
    #[serde(default)]
    pub cached_input_tokens: u64,
    /// Prompt tokens written to the provider's cache (Anthropic's cache creation; OpenAI's and
    /// OpenRouter's `cache_write_tokens`).
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// Tokens spent on hidden reasoning (a subset of `output_tokens`).
    #[serde(default)]
    pub reasoning_tokens: u64,
    /// Model requests made.
    #[serde(default)]
    pub requests: u64,
}

impl Usage {
    /// Input plus output tokens.
    pub fn total_tokens(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, rhs: Usage) {
        self.input_tokens += rhs.input_tokens;
        self.output_tokens += rhs.output_tokens;
        self.cached_input_tokens += rhs.cached_input_tokens;
        self.cache_write_tokens += rhs.cache_write_tokens;
        self.reasoning_tokens += rhs.reasoning_tokens;
        self.requests += rhs.requests;
    }
}

impl Add for Usage {
    type Output = Usage;
    fn add(mut self, rhs: Usage) -> Usage {
        self += rhs;
        self
    }
}

impl std::iter::Sum for Usage {
    fn sum<I: Iterator<Item = Usage>>(iter: I) -> Usage {
        iter.fold(Usage::default(), Add::add)
    }
}

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = if self.requests == 1 { "" } else { "s" };
        write!(
            f,
            "{} request{plural}, {} input tokens",
            self.requests, self.input_tokens
        )?;
        if self.cached_input_tokens > 0 {
            write!(f, " ({} cached)", self.cached_input_tokens)?;
        }
        write!(f, ", {} output tokens", self.output_tokens)?;
        if self.reasoning_tokens > 0 {
            write!(f, " ({} reasoning)", self.reasoning_tokens)?;
        }
        Ok(())
    }
}
