//! [`Limits`]: turns, tokens, cost and latency within bounds.

use std::time::Duration;

use futures::future::BoxFuture;

use super::error::EvaluatorError;
use super::evaluator::{EvalContext, Evaluator, Verdict};
use crate::cost::Cost;

/// Passes when the run stayed within every bound set: model requests (turns), total
/// tokens, cost, and the task's latency. A cost bound needs the task to price its run
/// ([`Observed::priced`](super::Observed::priced)); a case without a cost is an error.
///
/// ```
/// use std::time::Duration;
/// use agentry::cost::Cost;
/// use agentry::eval::Limits;
///
/// let budget = Limits::new()
///     .max_turns(4)
///     .max_tokens(20_000)
///     .max_cost(Cost::from_usd(0.01))
///     .max_latency(Duration::from_secs(30));
/// # let _ = budget;
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    turns: Option<u64>,
    tokens: Option<u64>,
    cost: Option<Cost>,
    latency: Option<Duration>,
}

impl Limits {
    /// No bound yet.
    pub fn new() -> Self {
        Limits::default()
    }

    /// At most `turns` model requests.
    pub fn max_turns(mut self, turns: u64) -> Self {
        self.turns = Some(turns);
        self
    }

    /// At most `tokens` tokens in total (input and output).
    pub fn max_tokens(mut self, tokens: u64) -> Self {
        self.tokens = Some(tokens);
        self
    }

    /// At most `cost`.
    pub fn max_cost(mut self, cost: Cost) -> Self {
        self.cost = Some(cost);
        self
    }

    /// At most `latency` for the task.
    pub fn max_latency(mut self, latency: Duration) -> Self {
        self.latency = Some(latency);
        self
    }
}

impl<I: Sync, O: Sync> Evaluator<I, O> for Limits {
    fn name(&self) -> String {
        "limits".into()
    }

    fn evaluate<'a>(
        &'a self,
        ctx: &'a EvalContext<'a, I, O>,
    ) -> BoxFuture<'a, Result<Verdict, EvaluatorError>> {
        let verdict = (|| {
            let observed = ctx.observed;
            let mut over = Vec::new();
            if let Some(max) = self.turns
                && observed.turns() > max
            {
                over.push(format!("{} turns > {max}", observed.turns()));
            }
            let tokens = observed.usage.total_tokens();
            if let Some(max) = self.tokens
                && tokens > max
            {
                over.push(format!("{tokens} tokens > {max}"));
            }
            if let Some(max) = self.cost {
                let cost = observed.cost.ok_or_else(|| {
                    EvaluatorError::new(format!(
                        "case `{}` has no cost to check (price the run with Observed::priced)",
                        ctx.case.name
                    ))
                })?;
                if cost > max {
                    over.push(format!("cost ${:.6} > ${:.6}", cost.as_usd(), max.as_usd()));
                }
            }
            if let Some(max) = self.latency
                && ctx.latency > max
            {
                over.push(format!("latency {:?} > {max:?}", ctx.latency));
            }
            Ok(if over.is_empty() {
                Verdict::pass()
            } else {
                Verdict::fail(over.join("; "))
            })
        })();
        Box::pin(std::future::ready(verdict))
    }
}
