//! [`Experiment`]: runs a task on every case of a dataset, at most so many at once, and
//! judges each with the evaluators.

use std::fmt::Display;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde::Serialize;
use tracing::Instrument;

use super::dataset::{Case, Dataset};
use super::evaluator::{EvalContext, Evaluator};
use super::observed::Observed;
use super::report::{CaseReport, Report, Score};

/// Whether a run shows a progress bar on stderr.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Progress {
    /// When stderr is a terminal.
    #[default]
    Auto,
    /// Never.
    Hidden,
}

/// An evaluation: a dataset, evaluators, and how many cases run at once.
///
/// ```
/// use agentry::eval::{Case, Contains, Dataset, Equals, Experiment, Observed};
///
/// # futures::executor::block_on(async {
/// let dataset = Dataset::new("shout")
///     .case(Case::new("hello", "hello".to_string()).expect("HELLO".to_string()))
///     .case(Case::new("ok", "ok".to_string()).expect("OK".to_string()));
/// let report = Experiment::new("uppercase", &dataset)
///     .evaluator(Equals)
///     .evaluator(Contains::new("L"))
///     .concurrency(2)
///     .run(async |input: &String| Ok::<_, std::convert::Infallible>(Observed::new(input.to_uppercase())))
///     .await;
/// assert_eq!(report.summary.passed, 1); // "OK" has no L
/// println!("{report}");
/// # });
/// ```
pub struct Experiment<'d, I, O> {
    name: String,
    dataset: &'d Dataset<I, O>,
    evaluators: Vec<(String, Box<dyn Evaluator<I, O> + 'd>)>,
    concurrency: usize,
    progress: Progress,
}

impl<'d, I, O> Experiment<'d, I, O> {
    /// An experiment named `name` on `dataset`, with no evaluator yet, running 4 cases at
    /// once.
    pub fn new(name: impl Into<String>, dataset: &'d Dataset<I, O>) -> Self {
        Experiment {
            name: name.into(),
            dataset,
            evaluators: Vec::new(),
            concurrency: 4,
            progress: Progress::Auto,
        }
    }

    /// Adds an evaluator. A name already taken gets a suffix (`contains #2`).
    pub fn evaluator(self, evaluator: impl Evaluator<I, O> + 'd) -> Self {
        let name = evaluator.name();
        self.evaluator_named(name, evaluator)
    }

    /// Adds an evaluator under another name (its column in the report, its key in
    /// baselines and thresholds).
    pub fn evaluator_named(
        mut self,
        name: impl Into<String>,
        evaluator: impl Evaluator<I, O> + 'd,
    ) -> Self {
        let base = name.into();
        let mut name = base.clone();
        let mut n = 1;
        while self.evaluators.iter().any(|(taken, _)| *taken == name) {
            n += 1;
            name = format!("{base} #{n}");
        }
        self.evaluators.push((name, Box::new(evaluator)));
        self
    }

    /// How many cases run at once (at least 1; default 4).
    pub fn concurrency(mut self, cases: usize) -> Self {
        self.concurrency = cases.max(1);
        self
    }

    /// Whether to show a progress bar (default: when stderr is a terminal).
    pub fn progress(mut self, progress: Progress) -> Self {
        self.progress = progress;
        self
    }

    /// Runs `task` on every case's input, at most [`concurrency`](Experiment::concurrency)
    /// at once, each in its own `eval_case` span, then the evaluators on what it returned
    /// (an [`Observed`], or anything that converts into one, such as an agent's
    /// [`RunResult`](crate::agent::RunResult)). A task error fails its case.
    ///
    /// Nothing is spawned: dropping the future cancels the cases in flight. A dataset with
    /// two cases of the same name gets a report whose second one failed with that reason.
    pub async fn run<F, T, E>(&self, task: F) -> Report
    where
        F: AsyncFn(&I) -> Result<T, E>,
        T: Into<Observed<O>>,
        E: Display,
        I: Serialize,
        O: Serialize,
    {
        let bar = self.progress_bar();
        let task = &task;
        let bar_ref = &bar;
        let duplicate = self.dataset.duplicate_name();
        let mut cases: Vec<(usize, CaseReport)> =
            futures::stream::iter(self.dataset.cases().iter().enumerate())
                .map(|(index, case)| async move {
                    let span = tracing::info_span!(
                        "eval_case",
                        experiment = %self.name,
                        case = %case.name,
                        passed = tracing::field::Empty,
                    );
                    let report = async {
                        let repeated = duplicate == Some(case.name.as_str())
                            && self.dataset.cases()[..index]
                                .iter()
                                .any(|c| c.name == case.name);
                        let report = if repeated {
                            failed(
                                case,
                                format!("another case is named `{}`", case.name),
                                Duration::ZERO,
                            )
                        } else {
                            self.run_case(case, task).await
                        };
                        tracing::Span::current().record("passed", report.passed);
                        report
                    }
                    .instrument(span)
                    .await;
                    if let Some(bar) = bar_ref {
                        bar.set_message(case.name.clone());
                        bar.inc(1);
                    }
                    (index, report)
                })
                .buffer_unordered(self.concurrency)
                .collect()
                .await;
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        cases.sort_by_key(|(index, _)| *index);
        let names = self.evaluators.iter().map(|(n, _)| n.clone()).collect();
        Report::new(
            self.name.clone(),
            self.dataset.name(),
            names,
            cases.into_iter().map(|(_, c)| c).collect(),
        )
    }

    async fn run_case<F, T, E>(&self, case: &Case<I, O>, task: &F) -> CaseReport
    where
        F: AsyncFn(&I) -> Result<T, E>,
        T: Into<Observed<O>>,
        E: Display,
        I: Serialize,
        O: Serialize,
    {
        let started = Instant::now();
        let outcome = task(&case.input).await;
        let latency = started.elapsed();
        let observed: Observed<O> = match outcome {
            Ok(value) => value.into(),
            Err(error) => return failed(case, error.to_string(), latency),
        };
        let ctx = EvalContext {
            case,
            observed: &observed,
            latency,
        };
        let mut scores = Vec::with_capacity(self.evaluators.len());
        for (name, evaluator) in &self.evaluators {
            let score = match evaluator.evaluate(&ctx).await {
                Ok(verdict) => Score {
                    evaluator: name.clone(),
                    score: if verdict.score.is_nan() {
                        0.0
                    } else {
                        verdict.score.clamp(0.0, 1.0)
                    },
                    passed: verdict.passed,
                    reason: verdict.reason,
                    error: None,
                },
                Err(error) => Score {
                    evaluator: name.clone(),
                    score: 0.0,
                    passed: false,
                    reason: None,
                    error: Some(error.to_string()),
                },
            };
            scores.push(score);
        }
        let output = serde_json::to_value(&observed.output);
        let (output, error) = match output {
            Ok(value) => (Some(value), None),
            Err(e) => (None, Some(format!("the output does not serialize: {e}"))),
        };
        CaseReport {
            name: case.name.clone(),
            passed: error.is_none() && scores.iter().all(|s| s.passed),
            error,
            scores,
            latency_ms: latency.as_secs_f64() * 1000.0,
            turns: observed.turns(),
            tokens: observed.usage.total_tokens(),
            cost: observed.cost,
            input: serde_json::to_value(&case.input).unwrap_or_default(),
            output,
            expected: case
                .expected
                .as_ref()
                .and_then(|e| serde_json::to_value(e).ok()),
            metadata: case.metadata.clone(),
        }
    }

    fn progress_bar(&self) -> Option<indicatif::ProgressBar> {
        if self.progress == Progress::Hidden || !std::io::stderr().is_terminal() {
            return None;
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(self.dataset.len() as u64),
            indicatif::ProgressDrawTarget::stderr(),
        );
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len} {elapsed} {wide_msg}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(self.name.clone());
        Some(bar)
    }
}

/// The report of a case whose task failed.
fn failed<I: Serialize, O: Serialize>(
    case: &Case<I, O>,
    error: String,
    latency: Duration,
) -> CaseReport {
    CaseReport {
        name: case.name.clone(),
        passed: false,
        error: Some(error),
        scores: Vec::new(),
        latency_ms: latency.as_secs_f64() * 1000.0,
        turns: 0,
        tokens: 0,
        cost: None,
        input: serde_json::to_value(&case.input).unwrap_or_default(),
        output: None,
        expected: case
            .expected
            .as_ref()
            .and_then(|e| serde_json::to_value(e).ok()),
        metadata: case.metadata.clone(),
    }
}
