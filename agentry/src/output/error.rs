//! Why a structured answer could not be used, and why a structured call failed.

use std::fmt;

use crate::model::ModelError;
use crate::usage::Usage;

use super::validate::ValidationError;

/// Why one answer of the model could not be turned into the output type.
///
/// Each variant is sent back to the model as a correction request (see
/// [`AnswerError::correction`]) while the retry budget lasts.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AnswerError {
    /// The answer has neither a call of the final-answer tool nor any text.
    #[error("the answer is empty")]
    Empty,
    /// The answer's text contains no JSON value.
    #[error("the answer contains no JSON value")]
    NoJson,
    /// The JSON is malformed.
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Syntax {
        /// 1-based line in the JSON text.
        line: usize,
        /// 1-based column in the JSON text.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// The JSON is well formed but does not fit the schema.
    #[error("at `{path}`: {message}")]
    Schema {
        /// Where, as a JSON path (`$.days[0].city`).
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The value fits the schema but fails a constraint or a custom validator.
    #[error(transparent)]
    Invalid(#[from] ValidationError),
    /// The answer calls a tool that is not available where only a final answer is expected.
    #[error("the answer calls `{name}`, which is not available here")]
    UnexpectedTool {
        /// The tool the model called.
        name: String,
    },
    /// The model stopped at its token limit, so the JSON is cut off.
    #[error("the answer was cut off at the token limit ({0})")]
    Truncated(String),
}

impl AnswerError {
    /// The correction request sent to the model for this error.
    pub fn correction(&self) -> String {
        let what = match self {
            AnswerError::Empty => "Your answer was empty.".to_string(),
            AnswerError::NoJson => {
                "Your answer did not contain a JSON value. Answer with the JSON value only."
                    .to_string()
            }
            AnswerError::Syntax { .. } => format!("Your answer is not valid JSON: {self}."),
            AnswerError::Schema { .. } => {
                format!("Your answer does not match the required schema: {self}.")
            }
            AnswerError::Invalid(v) => {
                let mut s = String::from("Your answer is not valid:");
                for violation in v.violations() {
                    s.push_str("\n- ");
                    s.push_str(&violation.to_string());
                }
                s
            }
            AnswerError::UnexpectedTool { name } => format!(
                "You called `{name}`, which is not available. Give your final answer instead."
            ),
            AnswerError::Truncated(_) => "Your answer was cut off because it was too long. \
                 Give a shorter answer."
                .to_string(),
        };
        format!("{what}\nPlease correct it and answer again.")
    }
}

/// One answer that could not be used: what the model wrote and what was wrong with it.
#[derive(Clone, Debug, PartialEq)]
pub struct FailedAttempt {
    /// The raw answer: the final-answer tool's arguments, or the message text.
    pub raw: String,
    /// What was wrong.
    pub error: AnswerError,
}

impl fmt::Display for FailedAttempt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.error)
    }
}

/// Why a structured-output call gave no value.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StructuredError {
    /// The model request failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The model refused to answer (OpenAI's `refusal`).
    #[error("the model refused: {refusal}")]
    Refused {
        /// The model's explanation.
        refusal: String,
        /// Tokens spent, refused answer included.
        usage: Usage,
    },
    /// Every answer was invalid and the retry budget is spent.
    #[error("no valid answer after {} attempts; last error: {}", attempts.len(), attempts.last().map(|a| a.error.to_string()).unwrap_or_default())]
    RetriesExhausted {
        /// Every failed answer, in order.
        attempts: Vec<FailedAttempt>,
        /// Tokens spent on all attempts.
        usage: Usage,
    },
}

impl StructuredError {
    /// The tokens spent before the call failed (zero for a failed request).
    pub fn usage(&self) -> Usage {
        match self {
            StructuredError::Model(_) => Usage::default(),
            StructuredError::Refused { usage, .. }
            | StructuredError::RetriesExhausted { usage, .. } => *usage,
        }
    }
}
