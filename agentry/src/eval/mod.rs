//! Evaluating agents: typed datasets, evaluators, concurrent runs and reports (the `eval`
//! feature).
//!
//! A [`Dataset<I, O>`](Dataset) holds [`Case`]s — a name, an input `I`, the output `O`
//! expected, metadata — built in code or loaded from a JSON or YAML file. An
//! [`Experiment`] runs a task (usually an agent's run) on every case, a few at once, and
//! judges each output with [`Evaluator`]s:
//!
//! | evaluator | passes when |
//! |---|---|
//! | [`Equals`] | the output equals the expected output |
//! | [`PathCheck`] | the nodes a JSONPath selects exist, equal a value, the expected output's or a metadata entry, or pass a predicate |
//! | [`Contains`] | the output's text holds some strings (fixed, or from the case's metadata) |
//! | [`ToolTrajectory`] | the run called the tools expected, with the arguments expected, in the order expected, and no forbidden one |
//! | [`Limits`] | turns, tokens, cost and latency stayed within bounds |
//! | [`LlmJudge`] | a model grades the output at or above a [`Rubric`]'s pass score (its [`JudgeVerdict`] is a typed structured output) |
//! | [`evaluator_fn`] | your closure says so |
//!
//! The [`Report`] is a terminal table (`println!("{report}")`), JSON (save it as the
//! baseline of the next run, [`Report::compare`]), and a self-contained HTML page with
//! score and latency histograms ([`Report::write_html`]); [`Report::assert_thresholds`]
//! fails a test when the pass rate or a score drops.
//!
//! ```
//! use agentry::eval::{Case, Dataset, Experiment, Observed, PathCheck, Thresholds, evaluator_fn};
//! use serde_json::json;
//!
//! # futures::executor::block_on(async {
//! let dataset: Dataset<String, serde_json::Value> = Dataset::from_yaml_str("
//! name: capitals
//! cases:
//!   - name: france
//!     input: France
//!     expected: { capital: Paris }
//!   - name: japan
//!     input: Japan
//!     expected: { capital: Tokyo }
//! ")?;
//! let report = Experiment::new("lookup", &dataset)
//!     .evaluator(PathCheck::matches_expected("$.capital")?)
//!     .evaluator(evaluator_fn("short", |ctx: &agentry::eval::EvalContext<'_, String, serde_json::Value>| {
//!         ctx.output()["capital"].as_str().is_some_and(|c| c.len() < 10)
//!     }))
//!     .run(async |country: &String| {
//!         let capital = if country == "France" { "Paris" } else { "Kyoto" };
//!         Ok::<_, String>(Observed::new(json!({ "capital": capital })))
//!     })
//!     .await;
//! assert_eq!(report.summary.pass_rate, 0.5);
//! assert!(report.check_thresholds(&Thresholds::new().pass_rate(0.9)).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```
//!
//! The guide's chapter "Evaluating agents" and `examples/evals.rs` evaluate the quickstart's
//! agent.

mod checks;
mod compare;
mod dataset;
mod error;
mod evaluator;
mod html;
mod judge;
mod limits;
mod observed;
mod report;
mod runner;
mod stats;
mod table;
mod trajectory;

pub use checks::{Contains, Equals, PathCheck};
pub use compare::{CaseChange, Change, Comparison, Delta, Thresholds};
pub use dataset::{Case, Dataset, MAX_DATASET_BYTES};
pub use error::{DatasetError, EvaluatorError, PathError, ReportError, ThresholdError};
pub use evaluator::{EvalContext, Evaluator, FnEvaluator, FnVerdict, Verdict, evaluator_fn};
pub use judge::{Criterion, CriterionScore, JudgeVerdict, LlmJudge, Rubric};
pub use limits::Limits;
pub use observed::Observed;
pub use report::{CaseReport, MAX_REPORT_BYTES, Report, Score, ScoreSummary, Summary};
pub use runner::{Experiment, Progress};
pub use stats::Percentiles;
pub use trajectory::{ExpectedCall, Order, ToolTrajectory};
