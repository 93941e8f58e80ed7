//! A report against a saved baseline ([`Comparison`]), and the [`Thresholds`] a report must
//! meet.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::error::ThresholdError;
use super::report::Report;

/// A number in the baseline and now.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Delta {
    /// In the baseline.
    pub baseline: f64,
    /// Now.
    pub current: f64,
}

impl Delta {
    /// `current - baseline`.
    pub fn change(&self) -> f64 {
        self.current - self.baseline
    }
}

/// How a case changed since the baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// It passed and now fails, or a score dropped.
    Regressed,
    /// It failed and now passes, or a score rose (and none dropped).
    Improved,
    /// Nothing moved beyond the tolerance.
    Unchanged,
    /// Not in the baseline.
    Added,
    /// In the baseline, not now.
    Removed,
}

/// One case against the baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseChange {
    /// The case.
    pub name: String,
    /// How it changed.
    pub change: Change,
    /// Whether it passed in the baseline.
    pub baseline_passed: Option<bool>,
    /// Whether it passes now.
    pub current_passed: Option<bool>,
    /// The scores that moved beyond the tolerance, by evaluator.
    pub scores: BTreeMap<String, Delta>,
}

/// A report against a saved baseline: [`Report::compare`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The pass rate then and now.
    pub pass_rate: Delta,
    /// Each evaluator's mean score then and now (evaluators in both reports).
    pub scores: BTreeMap<String, Delta>,
    /// The p50 latency then and now, in milliseconds.
    pub latency_p50_ms: Delta,
    /// Every case of either report: the current report's order, then the removed ones.
    pub cases: Vec<CaseChange>,
}

impl Comparison {
    /// The cases that regressed.
    pub fn regressions(&self) -> impl Iterator<Item = &CaseChange> {
        self.cases.iter().filter(|c| c.change == Change::Regressed)
    }

    /// Whether a case regressed, or the pass rate or an evaluator's mean dropped.
    pub fn has_regressions(&self, tolerance: f64) -> bool {
        self.regressions().next().is_some()
            || self.pass_rate.change() < -tolerance
            || self.scores.values().any(|d| d.change() < -tolerance)
    }

    /// Panics (failing a test) with the comparison's table when anything regressed.
    #[track_caller]
    pub fn assert_no_regressions(&self) {
        if self.has_regressions(0.0) {
            panic!("the evaluation regressed against its baseline:\n{self}");
        }
    }
}

impl Report {
    /// Compares with `baseline` (a saved earlier report), cases matched by name; a score
    /// that moves by less than 1e-9 is unchanged.
    pub fn compare(&self, baseline: &Report) -> Comparison {
        self.compare_within(baseline, 1e-9)
    }

    /// Compares with `baseline`, a score that moves by no more than `tolerance` being
    /// unchanged (judges are noisy: 0.05 ignores their small swings).
    pub fn compare_within(&self, baseline: &Report, tolerance: f64) -> Comparison {
        let mut cases = Vec::with_capacity(self.cases.len());
        for case in &self.cases {
            let Some(before) = baseline.case(&case.name) else {
                cases.push(CaseChange {
                    name: case.name.clone(),
                    change: Change::Added,
                    baseline_passed: None,
                    current_passed: Some(case.passed),
                    scores: BTreeMap::new(),
                });
                continue;
            };
            let scores: BTreeMap<String, Delta> = case
                .scores
                .iter()
                .filter_map(|now| {
                    let then = before.score(&now.evaluator)?;
                    let delta = Delta {
                        baseline: then.score,
                        current: now.score,
                    };
                    (delta.change().abs() > tolerance).then(|| (now.evaluator.clone(), delta))
                })
                .collect();
            let dropped = scores.values().any(|d| d.change() < 0.0);
            let rose = scores.values().any(|d| d.change() > 0.0);
            let change = match (before.passed, case.passed) {
                (true, false) => Change::Regressed,
                (false, true) => Change::Improved,
                _ if dropped => Change::Regressed,
                _ if rose => Change::Improved,
                _ => Change::Unchanged,
            };
            cases.push(CaseChange {
                name: case.name.clone(),
                change,
                baseline_passed: Some(before.passed),
                current_passed: Some(case.passed),
                scores,
            });
        }
        for gone in baseline
            .cases
            .iter()
            .filter(|c| self.case(&c.name).is_none())
        {
            cases.push(CaseChange {
                name: gone.name.clone(),
                change: Change::Removed,
                baseline_passed: Some(gone.passed),
                current_passed: None,
                scores: BTreeMap::new(),
            });
        }
        let scores = self
            .summary
            .scores
            .iter()
            .filter_map(|(name, now)| {
                let then = baseline.summary.scores.get(name)?;
                Some((
                    name.clone(),
                    Delta {
                        baseline: then.mean,
                        current: now.mean,
                    },
                ))
            })
            .collect();
        Comparison {
            pass_rate: Delta {
                baseline: baseline.summary.pass_rate,
                current: self.summary.pass_rate,
            },
            scores,
            latency_p50_ms: Delta {
                baseline: baseline.summary.latency_ms.p50,
                current: self.summary.latency_ms.p50,
            },
            cases,
        }
    }

    /// Checks the report against `thresholds`.
    pub fn check_thresholds(&self, thresholds: &Thresholds) -> Result<(), ThresholdError> {
        let mut failures = Vec::new();
        if let Some(min) = thresholds.pass_rate
            && self.summary.pass_rate < min
        {
            let failed: Vec<&str> = self
                .cases
                .iter()
                .filter(|c| !c.passed)
                .map(|c| c.name.as_str())
                .collect();
            failures.push(format!(
                "pass rate {:.1}% < {:.1}% (failed: {})",
                self.summary.pass_rate * 100.0,
                min * 100.0,
                failed.join(", ")
            ));
        }
        for (name, min) in &thresholds.scores {
            match self.summary.scores.get(name) {
                None => failures.push(format!(
                    "no evaluator named `{name}` in the report (it has: {})",
                    self.evaluators.join(", ")
                )),
                Some(s) if s.mean < *min => {
                    failures.push(format!("mean score of `{name}` {:.3} < {min:.3}", s.mean))
                }
                Some(_) => {}
            }
        }
        if failures.is_empty() {
            Ok(())
        } else {
            Err(ThresholdError {
                report: self.name.clone(),
                failures,
            })
        }
    }

    /// Panics (failing a `cargo test`) when the report is below `thresholds`, listing each
    /// threshold missed and the failed cases.
    ///
    /// ```should_panic
    /// use agentry::eval::{Case, Dataset, Equals, Experiment, Observed, Thresholds};
    ///
    /// # futures::executor::block_on(async {
    /// let dataset = Dataset::new("d")
    ///     .case(Case::new("one", 1).expect(2))
    ///     .case(Case::new("two", 2).expect(4));
    /// let report = Experiment::new("double", &dataset)
    ///     .evaluator(Equals)
    ///     .run(async |n: &i32| Ok::<_, String>(Observed::new(n + 1)))
    ///     .await;
    /// report.assert_thresholds(&Thresholds::new().pass_rate(0.9)); // 50%: panics
    /// # });
    /// ```
    #[track_caller]
    pub fn assert_thresholds(&self, thresholds: &Thresholds) {
        if let Err(e) = self.check_thresholds(thresholds) {
            panic!("{e}\n{self}");
        }
    }
}

/// The least a report must reach: a pass rate and mean scores per evaluator.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Thresholds {
    pass_rate: Option<f64>,
    scores: Vec<(String, f64)>,
}

impl Thresholds {
    /// No threshold yet.
    pub fn new() -> Self {
        Thresholds::default()
    }

    /// The share of cases that must pass, from 0 to 1.
    pub fn pass_rate(mut self, min: f64) -> Self {
        self.pass_rate = Some(min);
        self
    }

    /// The mean score the evaluator named `evaluator` must reach, from 0 to 1.
    pub fn score(mut self, evaluator: impl Into<String>, min: f64) -> Self {
        self.scores.push((evaluator.into(), min));
        self
    }
}
