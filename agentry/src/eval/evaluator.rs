//! The [`Evaluator`] trait, what it returns ([`Verdict`]), what it reads
//! ([`EvalContext`]), and [`evaluator_fn`] for a custom check in a closure.

use std::time::Duration;

use futures::future::BoxFuture;

use super::dataset::Case;
use super::error::EvaluatorError;
use super::observed::Observed;

/// What an evaluator reads about one case: the case, what the task returned, how long it
/// took.
#[derive(Debug)]
pub struct EvalContext<'a, I, O> {
    /// The case.
    pub case: &'a Case<I, O>,
    /// The task's output and run.
    pub observed: &'a Observed<O>,
    /// How long the task took.
    pub latency: Duration,
}

impl<I, O> EvalContext<'_, I, O> {
    /// The task's output.
    pub fn output(&self) -> &O {
        &self.observed.output
    }

    /// The case's expected output, or an error naming the case when it has none.
    pub fn expected(&self) -> Result<&O, EvaluatorError> {
        self.case.expected.as_ref().ok_or_else(|| {
            EvaluatorError::new(format!(
                "case `{}` has no expected output to compare with",
                self.case.name
            ))
        })
    }
}

/// One evaluator's judgement of one case: a score from 0 to 1, whether it passes, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// From 0 (worst) to 1 (best); clamped there.
    pub score: f64,
    /// Whether the case passes this evaluator.
    pub passed: bool,
    /// Why, for the report (shown on failures).
    pub reason: Option<String>,
}

impl Verdict {
    /// A pass: score 1.
    pub fn pass() -> Self {
        Verdict {
            score: 1.0,
            passed: true,
            reason: None,
        }
    }

    /// A failure: score 0, because of `reason`.
    pub fn fail(reason: impl Into<String>) -> Self {
        Verdict {
            score: 0.0,
            passed: false,
            reason: Some(reason.into()),
        }
    }

    /// A score that passes at `pass_at` or above.
    pub fn scored(score: f64, pass_at: f64) -> Self {
        let score = if score.is_nan() {
            0.0
        } else {
            score.clamp(0.0, 1.0)
        };
        Verdict {
            score,
            passed: score >= pass_at,
            reason: None,
        }
    }

    /// Sets the reason.
    pub fn because(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
}

impl From<bool> for Verdict {
    fn from(passed: bool) -> Self {
        if passed {
            Verdict::pass()
        } else {
            Verdict {
                score: 0.0,
                passed: false,
                reason: None,
            }
        }
    }
}

/// Judges one case. The builtins: [`Equals`](super::Equals), [`PathCheck`](super::PathCheck),
/// [`Contains`](super::Contains), [`ToolTrajectory`](super::ToolTrajectory),
/// [`Limits`](super::Limits), [`LlmJudge`](super::LlmJudge), and [`evaluator_fn`] for a
/// closure.
///
/// It is asynchronous (a judge asks a model) and object-safe: an
/// [`Experiment`](super::Experiment) holds a list of boxed evaluators.
pub trait Evaluator<I, O>: Send + Sync {
    /// Its name: a column of the report, the key of its scores in baselines and thresholds.
    fn name(&self) -> String;

    /// Judges the case in `ctx`. An error (the judge's model failed, the case has no
    /// expected output) fails the case and is shown in the report.
    fn evaluate<'a>(
        &'a self,
        ctx: &'a EvalContext<'a, I, O>,
    ) -> BoxFuture<'a, Result<Verdict, EvaluatorError>>;
}

/// A custom evaluator: [`evaluator_fn`].
pub struct FnEvaluator<F> {
    name: String,
    check: F,
}

/// An evaluator named `name` that judges with `check`, which returns a [`Verdict`], a
/// `bool`, or a `Result` of one.
///
/// ```
/// use agentry::eval::{EvalContext, Verdict, evaluator_fn};
///
/// let short = evaluator_fn("short", |ctx: &EvalContext<'_, String, String>| {
///     let words = ctx.output().split_whitespace().count();
///     Verdict::scored(1.0 - words as f64 / 100.0, 0.8).because(format!("{words} words"))
/// });
/// # let _ = short;
/// ```
pub fn evaluator_fn<I, O, F, R>(name: impl Into<String>, check: F) -> FnEvaluator<F>
where
    F: Fn(&EvalContext<'_, I, O>) -> R + Send + Sync,
    R: Into<FnVerdict>,
{
    FnEvaluator {
        name: name.into(),
        check,
    }
}

/// What an [`evaluator_fn`] closure returns: a [`Verdict`], a `bool`, or a `Result` of one
/// with an [`EvaluatorError`].
#[derive(Debug)]
pub struct FnVerdict(Result<Verdict, EvaluatorError>);

impl From<Verdict> for FnVerdict {
    fn from(verdict: Verdict) -> Self {
        FnVerdict(Ok(verdict))
    }
}

impl From<bool> for FnVerdict {
    fn from(passed: bool) -> Self {
        FnVerdict(Ok(passed.into()))
    }
}

impl<V: Into<Verdict>> From<Result<V, EvaluatorError>> for FnVerdict {
    fn from(result: Result<V, EvaluatorError>) -> Self {
        FnVerdict(result.map(Into::into))
    }
}

impl<I, O, F, R> Evaluator<I, O> for FnEvaluator<F>
where
    I: Sync,
    O: Sync,
    F: Fn(&EvalContext<'_, I, O>) -> R + Send + Sync,
    R: Into<FnVerdict>,
{
    fn name(&self) -> String {
        self.name.clone()
    }

    fn evaluate<'a>(
        &'a self,
        ctx: &'a EvalContext<'a, I, O>,
    ) -> BoxFuture<'a, Result<Verdict, EvaluatorError>> {
        let verdict = (self.check)(ctx).into().0;
        Box::pin(std::future::ready(verdict))
    }
}
