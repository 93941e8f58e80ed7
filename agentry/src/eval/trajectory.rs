//! [`ToolTrajectory`]: which tools the run called, with which arguments, in which order.

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::EvaluatorError;
use super::evaluator::{EvalContext, Evaluator, Verdict};
use crate::message::ToolCall;

/// A call a trajectory expects: a tool, and arguments the call's must contain (an object's
/// keys recursively; other values equal). In a dataset file, a tool's name alone or
/// `{tool, arguments}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ExpectedCall {
    /// Any call of the tool.
    Tool(String),
    /// A call of the tool whose arguments contain these.
    WithArguments {
        /// The tool.
        tool: String,
        /// What the call's arguments contain.
        arguments: Value,
    },
}

impl ExpectedCall {
    fn tool(&self) -> &str {
        match self {
            ExpectedCall::Tool(tool) | ExpectedCall::WithArguments { tool, .. } => tool,
        }
    }

    fn matches(&self, call: &ToolCall) -> bool {
        if call.name != self.tool() {
            return false;
        }
        match self {
            ExpectedCall::Tool(_) => true,
            ExpectedCall::WithArguments { arguments, .. } => {
                serde_json::from_str::<Value>(&call.arguments)
                    .is_ok_and(|actual| contains(&actual, arguments))
            }
        }
    }
}

impl std::fmt::Display for ExpectedCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExpectedCall::Tool(tool) => write!(f, "{tool}"),
            ExpectedCall::WithArguments { tool, arguments } => write!(f, "{tool}({arguments})"),
        }
    }
}

/// Whether `actual` holds `wanted`: objects by their keys, recursively; anything else equal.
fn contains(actual: &Value, wanted: &Value) -> bool {
    match (actual, wanted) {
        (Value::Object(actual), Value::Object(wanted)) => wanted
            .iter()
            .all(|(k, w)| actual.get(k).is_some_and(|a| contains(a, w))),
        _ => actual == wanted,
    }
}

/// How the expected calls are matched against the calls made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// Exactly the expected calls, in that order, and no other.
    Exact,
    /// The expected calls in that order; other calls may come between.
    InOrder,
    /// Each expected call, in any order; other calls may be made too.
    #[default]
    AnyOrder,
}

#[derive(Clone, Debug)]
enum Source {
    Fixed(Vec<ExpectedCall>),
    Metadata(String),
}

/// Checks the tool calls of a run ([`Observed::tool_calls`](super::Observed::tool_calls)):
/// the calls expected (by name, or with arguments), how they are ordered, tools that must
/// not be called, and how many calls at most. The score is the share of expected calls
/// matched (0 when a forbidden tool was called or there were too many calls).
///
/// ```
/// use agentry::eval::{Order, ToolTrajectory};
/// use serde_json::json;
///
/// let plan_first = ToolTrajectory::new()
///     .call("get_weather")
///     .call_with("find_activities", json!({ "outdoor": true }))
///     .order(Order::InOrder)
///     .forbid("book_hotel")
///     .max_calls(4);
/// // Or the calls each case expects, from its metadata (a list of names or `{tool, arguments}`).
/// let per_case = ToolTrajectory::from_metadata("tools");
/// # let _ = (plan_first, per_case);
/// ```
#[derive(Clone, Debug)]
pub struct ToolTrajectory {
    expected: Source,
    order: Order,
    forbidden: Vec<String>,
    max_calls: Option<usize>,
}

impl Default for ToolTrajectory {
    fn default() -> Self {
        ToolTrajectory::new()
    }
}

impl ToolTrajectory {
    /// No call expected yet, in any order.
    pub fn new() -> Self {
        ToolTrajectory {
            expected: Source::Fixed(Vec::new()),
            order: Order::AnyOrder,
            forbidden: Vec::new(),
            max_calls: None,
        }
    }

    /// The calls of each case's metadata entry `key`: a list of tool names or
    /// `{tool, arguments}` objects. A case without it expects no particular call.
    pub fn from_metadata(key: impl Into<String>) -> Self {
        ToolTrajectory {
            expected: Source::Metadata(key.into()),
            ..ToolTrajectory::new()
        }
    }

    /// Expects a call of `tool`.
    pub fn call(self, tool: impl Into<String>) -> Self {
        self.expect(ExpectedCall::Tool(tool.into()))
    }

    /// Expects a call of `tool` whose arguments contain `arguments`.
    pub fn call_with(self, tool: impl Into<String>, arguments: Value) -> Self {
        self.expect(ExpectedCall::WithArguments {
            tool: tool.into(),
            arguments,
        })
    }

    fn expect(mut self, call: ExpectedCall) -> Self {
        match &mut self.expected {
            Source::Fixed(calls) => calls.push(call),
            Source::Metadata(_) => self.expected = Source::Fixed(vec![call]),
        }
        self
    }

    /// How the calls are matched (default [`Order::AnyOrder`]).
    pub fn order(mut self, order: Order) -> Self {
        self.order = order;
        self
    }

    /// Fails when `tool` is called.
    pub fn forbid(mut self, tool: impl Into<String>) -> Self {
        self.forbidden.push(tool.into());
        self
    }

    /// Fails when more than `max` calls are made.
    pub fn max_calls(mut self, max: usize) -> Self {
        self.max_calls = Some(max);
        self
    }

    fn expected<I, O>(
        &self,
        ctx: &EvalContext<'_, I, O>,
    ) -> Result<Vec<ExpectedCall>, EvaluatorError> {
        match &self.expected {
            Source::Fixed(calls) => Ok(calls.clone()),
            Source::Metadata(key) => match ctx.case.metadata.get(key) {
                None => Ok(Vec::new()),
                Some(value) => serde_json::from_value(value.clone()).map_err(|e| {
                    EvaluatorError::new(format!(
                        "metadata `{key}` of case `{}` is not a list of tool names or \
                         {{tool, arguments}}: {e}",
                        ctx.case.name
                    ))
                }),
            },
        }
    }

    /// Judges `calls` against `expected`.
    fn judge(&self, expected: &[ExpectedCall], calls: &[ToolCall]) -> Verdict {
        let made = || {
            let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
            format!("[{}]", names.join(", "))
        };
        if let Some(call) = calls.iter().find(|c| self.forbidden.contains(&c.name)) {
            return Verdict::fail(format!("called the forbidden tool `{}`", call.name));
        }
        if let Some(max) = self.max_calls
            && calls.len() > max
        {
            return Verdict::fail(format!("{} calls, at most {max}: {}", calls.len(), made()));
        }
        if expected.is_empty() {
            return Verdict::pass();
        }
        let matched = match self.order {
            Order::Exact => expected
                .iter()
                .zip(calls)
                .filter(|(e, c)| e.matches(c))
                .count(),
            Order::InOrder => {
                let mut rest = calls.iter();
                expected
                    .iter()
                    .take_while(|e| rest.any(|c| e.matches(c)))
                    .count()
            }
            Order::AnyOrder => {
                let mut used = vec![false; calls.len()];
                expected
                    .iter()
                    .filter(|e| {
                        let hit = calls
                            .iter()
                            .enumerate()
                            .position(|(i, c)| !used[i] && e.matches(c));
                        hit.map(|i| used[i] = true).is_some()
                    })
                    .count()
            }
        };
        let total = match self.order {
            Order::Exact => expected.len().max(calls.len()),
            _ => expected.len(),
        };
        let verdict = Verdict::scored(matched as f64 / total as f64, 1.0);
        if verdict.passed {
            return verdict;
        }
        let wanted: Vec<String> = expected.iter().map(ToString::to_string).collect();
        let how = match self.order {
            Order::Exact => "exactly",
            Order::InOrder => "in order",
            Order::AnyOrder => "in any order",
        };
        verdict.because(format!(
            "expected [{}] {how}, made {}",
            wanted.join(", "),
            made()
        ))
    }
}

impl<I: Sync, O: Sync> Evaluator<I, O> for ToolTrajectory {
    fn name(&self) -> String {
        match &self.expected {
            Source::Metadata(key) => format!("trajectory metadata.{key}"),
            Source::Fixed(_) => "trajectory".into(),
        }
    }

    fn evaluate<'a>(
        &'a self,
        ctx: &'a EvalContext<'a, I, O>,
    ) -> BoxFuture<'a, Result<Verdict, EvaluatorError>> {
        let verdict = self
            .expected(ctx)
            .map(|expected| self.judge(&expected, &ctx.observed.tool_calls));
        Box::pin(std::future::ready(verdict))
    }
}
