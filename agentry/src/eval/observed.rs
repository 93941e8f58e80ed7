//! [`Observed`]: what the evaluated task returns for a case — its output, and what the run
//! did to get it.

use crate::cost::{Cost, PriceTable};
use crate::message::{Message, ToolCall};
use crate::run::RunResult;
use crate::usage::Usage;

/// A task's output for one case, with what the evaluators of the run itself read: the tool
/// calls made (in order), the conversation, the usage and the cost.
///
/// A [`RunResult`] converts into one (`run.into()`); a task that is not an agent run wraps
/// its value with [`Observed::new`].
#[derive(Clone, Debug)]
pub struct Observed<O> {
    /// The output.
    pub output: O,
    /// The tool calls made, in order (a run's [`steps`](RunResult::steps); the final-answer
    /// tool is not one).
    pub tool_calls: Vec<ToolCall>,
    /// The conversation, when the task is an agent run.
    pub messages: Vec<Message>,
    /// Tokens and requests spent.
    pub usage: Usage,
    /// What it cost, when the task priced it.
    pub cost: Option<Cost>,
}

impl<O> Observed<O> {
    /// `output`, with no calls, usage or cost.
    pub fn new(output: O) -> Self {
        Observed {
            output,
            tool_calls: Vec::new(),
            messages: Vec::new(),
            usage: Usage::default(),
            cost: None,
        }
    }

    /// What the run cost at `prices` (left unset when the table does not price a model the
    /// run used).
    pub fn priced<S>(run: RunResult<O, S>, prices: &PriceTable) -> Self {
        let cost = run.cost(prices).ok();
        Observed { cost, ..run.into() }
    }

    /// Sets the cost.
    pub fn with_cost(mut self, cost: Cost) -> Self {
        self.cost = Some(cost);
        self
    }

    /// Model requests made (the run's turns).
    pub fn turns(&self) -> u64 {
        self.usage.requests
    }
}

impl<O, S> From<RunResult<O, S>> for Observed<O> {
    fn from(run: RunResult<O, S>) -> Self {
        Observed {
            output: run.output,
            tool_calls: run.steps.into_iter().map(|step| step.call).collect(),
            messages: run.messages.into_vec(),
            usage: run.usage,
            cost: None,
        }
    }
}
