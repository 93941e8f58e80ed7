//! [`Report`]: what an evaluation found, per case and in aggregate; saved and loaded as
//! JSON (a baseline is a saved report).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::ReportError;
use super::stats::Percentiles;
use crate::cost::Cost;

/// The largest report file [`Report::load_json`] reads: 256 MiB.
pub const MAX_REPORT_BYTES: u64 = 256 << 20;

/// One evaluator's result on one case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// The evaluator's name.
    pub evaluator: String,
    /// From 0 to 1 (0 when the evaluator failed).
    pub score: f64,
    /// Whether the case passes it.
    pub passed: bool,
    /// Why, when the evaluator said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Why the evaluator could not judge, if it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One case's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseReport {
    /// The case's name.
    pub name: String,
    /// Whether the task succeeded and every evaluator passed.
    pub passed: bool,
    /// Why the task failed, if it did (then no evaluator ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Each evaluator's result, in the experiment's order.
    pub scores: Vec<Score>,
    /// How long the task took, in milliseconds.
    pub latency_ms: f64,
    /// Model requests made.
    pub turns: u64,
    /// Tokens spent (input and output).
    pub tokens: u64,
    /// What it cost, when priced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// The case's input, as JSON.
    pub input: Value,
    /// The task's output, as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// The expected output, as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    /// The case's metadata.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

impl CaseReport {
    /// The evaluator `name`'s result.
    pub fn score(&self, evaluator: &str) -> Option<&Score> {
        self.scores.iter().find(|s| s.evaluator == evaluator)
    }

    /// The mean of its scores (0 when the task failed, 1 with no evaluator).
    pub fn mean_score(&self) -> f64 {
        if self.error.is_some() {
            0.0
        } else if self.scores.is_empty() {
            1.0
        } else {
            self.scores.iter().map(|s| s.score).sum::<f64>() / self.scores.len() as f64
        }
    }
}

/// One evaluator over all cases.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreSummary {
    /// The mean score (a case whose task failed counts 0).
    pub mean: f64,
    /// The share of cases that pass it.
    pub pass_rate: f64,
}

/// The aggregate of a report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// How many cases.
    pub cases: usize,
    /// How many passed.
    pub passed: usize,
    /// `passed / cases` (1 for no case).
    pub pass_rate: f64,
    /// Per evaluator, by name.
    pub scores: BTreeMap<String, ScoreSummary>,
    /// Latency percentiles, in milliseconds.
    pub latency_ms: Percentiles,
    /// Tokens spent in total.
    pub tokens: u64,
    /// The total cost of the cases that were priced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

impl Summary {
    /// The summary of `cases`, for evaluators named `evaluators`.
    pub(crate) fn of(cases: &[CaseReport], evaluators: &[String]) -> Self {
        let count = cases.len();
        let passed = cases.iter().filter(|c| c.passed).count();
        let share = |n: usize| {
            if count == 0 {
                1.0
            } else {
                n as f64 / count as f64
            }
        };
        let scores = evaluators
            .iter()
            .map(|name| {
                let (sum, passes) =
                    cases
                        .iter()
                        .fold((0.0, 0), |(sum, passes), case| match case.score(name) {
                            Some(s) => (sum + s.score, passes + usize::from(s.passed)),
                            None => (sum, passes),
                        });
                let mean = if count == 0 { 1.0 } else { sum / count as f64 };
                let summary = ScoreSummary {
                    mean,
                    pass_rate: share(passes),
                };
                (name.clone(), summary)
            })
            .collect();
        let latencies: Vec<f64> = cases.iter().map(|c| c.latency_ms).collect();
        let priced: Vec<Cost> = cases.iter().filter_map(|c| c.cost).collect();
        Summary {
            cases: count,
            passed,
            pass_rate: share(passed),
            scores,
            latency_ms: Percentiles::of(&latencies),
            tokens: cases.iter().map(|c| c.tokens).sum(),
            cost: (!priced.is_empty()).then(|| priced.into_iter().sum()),
        }
    }
}

/// What an [`Experiment`](super::Experiment) found: one [`CaseReport`] per case, in the
/// dataset's order, and their [`Summary`].
///
/// Show it in a terminal (`{report}` is a table), save it as JSON (a baseline for later
/// runs, [`Report::compare`]), write it as a self-contained HTML page
/// ([`Report::write_html`]), and gate a test on it ([`Report::assert_thresholds`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The experiment's name.
    pub name: String,
    /// The dataset's name.
    pub dataset: String,
    /// The evaluators' names, in order.
    pub evaluators: Vec<String>,
    /// One per case, in the dataset's order.
    pub cases: Vec<CaseReport>,
    /// The aggregate.
    pub summary: Summary,
}

impl Report {
    /// A report of `cases`; the summary is computed.
    pub fn new(
        name: impl Into<String>,
        dataset: impl Into<String>,
        evaluators: Vec<String>,
        cases: Vec<CaseReport>,
    ) -> Self {
        let summary = Summary::of(&cases, &evaluators);
        Report {
            name: name.into(),
            dataset: dataset.into(),
            evaluators,
            cases,
            summary,
        }
    }

    /// The case named `name`.
    pub fn case(&self, name: &str) -> Option<&CaseReport> {
        self.cases.iter().find(|c| c.name == name)
    }

    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report serializes (plain JSON values)")
    }

    /// Parses a report saved with [`Report::to_json`]; an error names the field.
    pub fn from_json(text: &str) -> Result<Self, ReportError> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut deserializer).map_err(|e| ReportError::Json {
            field: e.path().to_string(),
            message: e.into_inner().to_string(),
        })
    }

    /// Writes the JSON to `path` (creating its folder).
    pub fn save_json(&self, path: impl AsRef<Path>) -> Result<(), ReportError> {
        write(path.as_ref(), self.to_json().as_bytes())
    }

    /// Reads a report saved with [`Report::save_json`].
    pub fn load_json(path: impl AsRef<Path>) -> Result<Self, ReportError> {
        let path = path.as_ref();
        let io = |source| ReportError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut text = String::new();
        std::fs::File::open(path)
            .map_err(io)?
            .take(MAX_REPORT_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(io)?;
        if text.len() as u64 > MAX_REPORT_BYTES {
            return Err(ReportError::TooLarge {
                path: path.to_path_buf(),
                limit: MAX_REPORT_BYTES,
            });
        }
        Report::from_json(&text)
    }

    /// Writes the HTML page ([`Report::to_html`]) to `path` (creating its folder).
    pub fn write_html(&self, path: impl AsRef<Path>) -> Result<(), ReportError> {
        write(path.as_ref(), self.to_html().as_bytes())
    }

    /// Writes the HTML page with a column marking each case against a baseline
    /// ([`Report::to_html_against`]) to `path` (creating its folder).
    pub fn write_html_against(
        &self,
        path: impl AsRef<Path>,
        comparison: &super::Comparison,
    ) -> Result<(), ReportError> {
        write(path.as_ref(), self.to_html_against(comparison).as_bytes())
    }
}

pub(crate) fn write(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    let io = |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    std::fs::write(path, bytes).map_err(io)
}
