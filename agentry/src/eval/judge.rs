//! [`LlmJudge`]: a model grades the output against a typed [`Rubric`] and answers with a
//! typed [`JudgeVerdict`].

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::error::EvaluatorError;
use super::evaluator::{EvalContext, Evaluator, Verdict};
use crate::message::Message;
use crate::model::SharedModel;
use crate::output::StructuredExt;

/// What a judge grades: named criteria, and the mean score at which a case passes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Rubric {
    /// The criteria, each scored from 0 to 1 by the judge.
    pub criteria: Vec<Criterion>,
    /// The mean criterion score at which a case passes (default 0.7).
    #[serde(default = "default_pass_score")]
    pub pass_score: f64,
}

fn default_pass_score() -> f64 {
    0.7
}

impl Rubric {
    /// An empty rubric passing at 0.7.
    pub fn new() -> Self {
        Rubric {
            criteria: Vec::new(),
            pass_score: default_pass_score(),
        }
    }

    /// Adds a criterion.
    pub fn criterion(mut self, name: impl Into<String>, description: impl Into<String>) -> Self {
        self.criteria.push(Criterion {
            name: name.into(),
            description: description.into(),
        });
        self
    }

    /// Sets the mean score at which a case passes.
    pub fn pass_score(mut self, score: f64) -> Self {
        self.pass_score = score;
        self
    }
}

impl Default for Rubric {
    fn default() -> Self {
        Rubric::new()
    }
}

/// One criterion of a [`Rubric`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Criterion {
    /// A short name (`grounded`, `concise`).
    pub name: String,
    /// What a score of 1 means.
    pub description: String,
}

/// A judge's grade of one criterion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, crate::StructuredOutput)]
pub struct CriterionScore {
    /// The criterion's name, as in the rubric.
    pub criterion: String,
    /// From 0 (not met) to 1 (fully met).
    #[output(range(min = 0, max = 1))]
    pub score: f64,
    /// Why, in one sentence.
    pub reason: String,
}

/// The judge's answer: a score per criterion of the rubric, and its reasoning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, crate::StructuredOutput)]
#[output(name = "judge_verdict")]
pub struct JudgeVerdict {
    /// One entry per criterion of the rubric.
    #[output(length(min = 1))]
    pub scores: Vec<CriterionScore>,
    /// The overall reasoning, in a few sentences.
    pub reasoning: String,
}

/// Asks a model to grade each case against a [`Rubric`]: it is shown the rubric, the case's
/// input, expected output (when there is one) and the task's output, and answers with a
/// [`JudgeVerdict`] (a typed, validated structured output; an invalid answer is asked
/// again). The score is the mean over the rubric's criteria; a criterion the judge left out
/// counts 0.
///
/// ```no_run
/// use agentry::eval::{LlmJudge, Rubric};
/// # fn demo(model: agentry::model::SharedModel) {
/// let judge = LlmJudge::new(
///     model,
///     Rubric::new()
///         .criterion("grounded", "Uses only facts the tools returned.")
///         .criterion("helpful", "Answers what was asked.")
///         .pass_score(0.8),
/// );
/// # let _ = judge; }
/// ```
pub struct LlmJudge {
    model: SharedModel,
    rubric: Rubric,
    name: String,
    instructions: String,
}

impl std::fmt::Debug for LlmJudge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmJudge")
            .field("model", &self.model.model_name())
            .field("rubric", &self.rubric)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

const INSTRUCTIONS: &str = "You grade the output of an AI system. For each criterion of the \
    rubric, give a score from 0 (not met) to 1 (fully met) and a one-sentence reason, naming \
    the criterion exactly as the rubric does. Judge only what is shown.";

impl LlmJudge {
    /// A judge named `judge`, asking `model` to grade with `rubric`.
    pub fn new(model: SharedModel, rubric: Rubric) -> Self {
        LlmJudge {
            model,
            rubric,
            name: "judge".into(),
            instructions: INSTRUCTIONS.into(),
        }
    }

    /// Sets its name (the report's column).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Replaces the system instructions the judge is given.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = instructions.into();
        self
    }

    /// The rubric.
    pub fn rubric(&self) -> &Rubric {
        &self.rubric
    }

    /// The messages the judge is sent for a case.
    fn messages(&self, case: serde_json::Value) -> Vec<Message> {
        let rubric = serde_json::to_string_pretty(&self.rubric).unwrap_or_default();
        let case = serde_json::to_string_pretty(&case).unwrap_or_default();
        vec![
            Message::system(format!("{}\n\nRubric:\n{rubric}", self.instructions)),
            Message::user(format!("Grade this case.\n\n{case}")),
        ]
    }

    /// The verdict on the rubric from the judge's answer.
    fn verdict(&self, answer: &JudgeVerdict) -> Verdict {
        if self.rubric.criteria.is_empty() {
            return Verdict::fail("the rubric has no criterion");
        }
        let score_of = |name: &str| {
            answer
                .scores
                .iter()
                .find(|s| s.criterion.eq_ignore_ascii_case(name))
                .map_or(0.0, |s| s.score)
        };
        let total: f64 = self.rubric.criteria.iter().map(|c| score_of(&c.name)).sum();
        let mean = total / self.rubric.criteria.len() as f64;
        let low: Vec<String> = answer
            .scores
            .iter()
            .filter(|s| s.score < self.rubric.pass_score)
            .map(|s| format!("{} {:.2}: {}", s.criterion, s.score, s.reason))
            .collect();
        let reason = if low.is_empty() {
            answer.reasoning.clone()
        } else {
            low.join("; ")
        };
        Verdict::scored(mean, self.rubric.pass_score).because(reason)
    }
}

impl<I: Serialize + Sync, O: Serialize + Sync> Evaluator<I, O> for LlmJudge {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn evaluate<'a>(
        &'a self,
        ctx: &'a EvalContext<'a, I, O>,
    ) -> BoxFuture<'a, Result<Verdict, EvaluatorError>> {
        Box::pin(async move {
            let serialize = |what: &str, e: serde_json::Error| {
                EvaluatorError::new(format!("the {what} does not serialize: {e}"))
            };
            let mut case = json!({
                "input": serde_json::to_value(&ctx.case.input).map_err(|e| serialize("input", e))?,
                "output": serde_json::to_value(ctx.output()).map_err(|e| serialize("output", e))?,
            });
            if let Some(expected) = &ctx.case.expected {
                case["expected_output"] =
                    serde_json::to_value(expected).map_err(|e| serialize("expected output", e))?;
            }
            let answer: JudgeVerdict = self
                .model
                .structured::<JudgeVerdict>()
                .invoke(self.messages(case))
                .await
                .map_err(|e| EvaluatorError::new(format!("the judge failed: {e}")))?;
            Ok(self.verdict(&answer))
        })
    }
}
