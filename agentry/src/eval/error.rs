//! The errors of [`eval`](super): a dataset that does not load, a report that does not
//! save or load, thresholds that are not met.

use std::path::PathBuf;

/// Why a [`Dataset`](super::Dataset) did not load.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DatasetError {
    /// The file could not be read.
    #[error("cannot read the dataset file {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_DATASET_BYTES`](super::MAX_DATASET_BYTES).
    #[error("the dataset file {} is larger than {limit} bytes", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The file's extension is neither `.json` nor `.yaml` / `.yml`.
    #[error("the dataset file {} is neither .json nor .yaml/.yml", path.display())]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// The text is not valid JSON or YAML.
    #[error("the dataset is not valid {format}: {message}")]
    Syntax {
        /// `JSON` or `YAML`.
        format: &'static str,
        /// The parser's message, with the line and column.
        message: String,
    },
    /// The document is neither a list of cases nor an object with a `cases` list.
    #[error("the dataset is neither a list of cases nor an object with a `cases` list: {0}")]
    Shape(String),
    /// A case does not match the dataset's types.
    #[error("case {} (`{}`): at `{field}`: {message}", index + 1, case.as_deref().unwrap_or("unnamed"))]
    Case {
        /// Its position in the file, from 0.
        index: usize,
        /// Its `name`, when it has a readable one.
        case: Option<String>,
        /// The field that does not match, as a path (`input.city`, `metadata`); `.` for the
        /// case itself.
        field: String,
        /// What is wrong there.
        message: String,
    },
    /// Two cases have the same name.
    #[error("two cases are named `{0}`; case names identify cases in reports and baselines")]
    DuplicateName(String),
    /// An error in a file, with the file's path.
    #[error("{}: {error}", path.display())]
    InFile {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        error: Box<DatasetError>,
    },
}

/// Why a [`Report`](super::Report) could not be saved or loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is larger than [`MAX_REPORT_BYTES`](super::MAX_REPORT_BYTES).
    #[error("the report {} is larger than {limit} bytes", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The JSON is not a report.
    #[error("not an evaluation report: at `{field}`: {message}")]
    Json {
        /// Where in the document.
        field: String,
        /// What is wrong there.
        message: String,
    },
}

/// An evaluator that could not judge a case (a judge model that failed, a case without the
/// expected output the evaluator compares with). The case counts as failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EvaluatorError(String);

impl EvaluatorError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        EvaluatorError(message.into())
    }
}

/// A JSONPath expression that does not parse (RFC 9535).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid JSONPath `{path}`: {message}")]
pub struct PathError {
    /// The expression.
    pub path: String,
    /// The parser's message.
    pub message: String,
}

/// Thresholds a report does not meet: see [`Report::check_thresholds`](super::Report::check_thresholds).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("the evaluation `{report}` is below its thresholds:\n  {}", failures.join("\n  "))]
pub struct ThresholdError {
    /// The report's name.
    pub report: String,
    /// One line per threshold missed.
    pub failures: Vec<String>,
}
