//! [`Dataset`] and [`Case`]: what an evaluation runs, built in code or loaded from a JSON or
//! YAML file.

use std::collections::HashSet;
use std::io::Read;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::DatasetError;

/// The largest dataset file [`Dataset::from_file`] reads: 64 MiB.
pub const MAX_DATASET_BYTES: u64 = 64 << 20;

/// One case: a named input, the output expected for it (when there is one), and free-form
/// metadata evaluators can read (tools expected, words to mention, a difficulty).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case<I, O> {
    /// Identifies the case in reports and baselines; unique in its dataset.
    pub name: String,
    /// What the task is given.
    pub input: I,
    /// The output expected, for the evaluators that compare with it.
    #[serde(default = "none", skip_serializing_if = "Option::is_none")]
    pub expected: Option<O>,
    /// Anything else about the case.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

fn none<O>() -> Option<O> {
    None
}

impl<I, O> Case<I, O> {
    /// A case named `name` with `input`, no expected output and no metadata.
    pub fn new(name: impl Into<String>, input: I) -> Self {
        Case {
            name: name.into(),
            input,
            expected: None,
            metadata: Map::new(),
        }
    }

    /// Sets the expected output.
    pub fn expect(mut self, expected: O) -> Self {
        self.expected = Some(expected);
        self
    }

    /// Adds a metadata entry.
    pub fn meta(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.metadata.insert(key.into(), value.into());
        self
    }
}

/// A named list of [`Case`]s with inputs of type `I` and expected outputs of type `O`.
///
/// Built in code:
///
/// ```
/// use agentry::eval::{Case, Dataset};
///
/// let dataset: Dataset<String, String> = Dataset::new("greetings")
///     .case(Case::new("french", "bonjour".to_string()).expect("hello".to_string()))
///     .case(Case::new("spanish", "hola".to_string()).meta("difficulty", "easy"));
/// assert_eq!(dataset.len(), 2);
/// ```
///
/// or loaded from a file, YAML or JSON, either a list of cases or an object with a `name`
/// and a `cases` list; a case that does not fit the types is an error naming the case and
/// the field:
///
/// ```
/// use agentry::eval::Dataset;
///
/// let yaml = "
/// name: arithmetic
/// cases:
///   - name: small
///     input: [2, 3]
///     expected: 5
///   - name: broken
///     input: [2, three]
/// ";
/// let err = Dataset::<(i32, i32), i32>::from_yaml_str(yaml).unwrap_err().to_string();
/// assert!(err.contains("case 2 (`broken`): at `input[1]`"), "{err}");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Dataset<I, O> {
    name: String,
    cases: Vec<Case<I, O>>,
}

impl<I, O> Dataset<I, O> {
    /// An empty dataset named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Dataset {
            name: name.into(),
            cases: Vec::new(),
        }
    }

    /// Adds a case. A name already used is refused later, by [`Dataset::push`] and
    /// [`Experiment::run`](super::Experiment::run) (which reports it).
    pub fn case(mut self, case: Case<I, O>) -> Self {
        self.cases.push(case);
        self
    }

    /// Adds a case, refusing a name already used.
    pub fn push(&mut self, case: Case<I, O>) -> Result<(), DatasetError> {
        if self.cases.iter().any(|c| c.name == case.name) {
            return Err(DatasetError::DuplicateName(case.name));
        }
        self.cases.push(case);
        Ok(())
    }

    /// The dataset's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its cases, in order.
    pub fn cases(&self) -> &[Case<I, O>] {
        &self.cases
    }

    /// How many cases.
    pub fn len(&self) -> usize {
        self.cases.len()
    }

    /// Whether it has no case.
    pub fn is_empty(&self) -> bool {
        self.cases.is_empty()
    }

    /// The first name used by two cases, if any.
    pub(crate) fn duplicate_name(&self) -> Option<&str> {
        let mut seen = HashSet::new();
        self.cases
            .iter()
            .find(|c| !seen.insert(c.name.as_str()))
            .map(|c| c.name.as_str())
    }
}

impl<I: DeserializeOwned, O: DeserializeOwned> Dataset<I, O> {
    /// Loads a dataset from a `.json`, `.yaml` or `.yml` file; its name defaults to the
    /// file's stem. Errors name the file, and the case and field when a case is wrong.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, DatasetError> {
        let path = path.as_ref();
        let in_file = |error: DatasetError| DatasetError::InFile {
            path: path.to_path_buf(),
            error: Box::new(error),
        };
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let yaml = match extension.to_ascii_lowercase().as_str() {
            "json" => false,
            "yaml" | "yml" => true,
            _ => {
                return Err(DatasetError::UnknownFormat {
                    path: path.to_path_buf(),
                });
            }
        };
        let text = read_limited(path)?;
        let document = if yaml {
            parse_yaml(&text)
        } else {
            parse_json(&text)
        }
        .map_err(in_file)?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Self::from_document(document, stem).map_err(in_file)
    }

    /// Parses a dataset from JSON text.
    pub fn from_json_str(text: &str) -> Result<Self, DatasetError> {
        Self::from_document(parse_json(text)?, String::new())
    }

    /// Parses a dataset from YAML text.
    pub fn from_yaml_str(text: &str) -> Result<Self, DatasetError> {
        Self::from_document(parse_yaml(text)?, String::new())
    }

    /// Parses a dataset from a JSON value (a list of cases, or `{name, cases}`).
    pub fn from_value(document: Value) -> Result<Self, DatasetError> {
        Self::from_document(document, String::new())
    }

    fn from_document(document: Value, default_name: String) -> Result<Self, DatasetError> {
        let (name, cases) = match document {
            Value::Array(cases) => (default_name, cases),
            Value::Object(mut object) => {
                let name = match object.remove("name") {
                    None => default_name,
                    Some(Value::String(name)) => name,
                    Some(other) => {
                        return Err(DatasetError::Shape(format!(
                            "`name` is {}, not a string",
                            kind(&other)
                        )));
                    }
                };
                let cases = match object.remove("cases") {
                    Some(Value::Array(cases)) => cases,
                    Some(other) => {
                        return Err(DatasetError::Shape(format!(
                            "`cases` is {}, not a list",
                            kind(&other)
                        )));
                    }
                    None => return Err(DatasetError::Shape("there is no `cases` list".into())),
                };
                if let Some(key) = object.keys().next() {
                    return Err(DatasetError::Shape(format!(
                        "unknown key `{key}` (expected `name` and `cases`)"
                    )));
                }
                (name, cases)
            }
            other => {
                return Err(DatasetError::Shape(format!(
                    "the document is {}",
                    kind(&other)
                )));
            }
        };
        let mut dataset = Dataset::new(name);
        for (index, value) in cases.into_iter().enumerate() {
            let case_name = value.get("name").and_then(Value::as_str).map(str::to_owned);
            let case: Case<I, O> =
                serde_path_to_error::deserialize(value).map_err(|e| DatasetError::Case {
                    index,
                    case: case_name,
                    field: e.path().to_string(),
                    message: e.into_inner().to_string(),
                })?;
            dataset.push(case)?;
        }
        Ok(dataset)
    }
}

fn read_limited(path: &Path) -> Result<String, DatasetError> {
    let io = |source| DatasetError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut text = String::new();
    file.take(MAX_DATASET_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(io)?;
    if text.len() as u64 > MAX_DATASET_BYTES {
        return Err(DatasetError::TooLarge {
            path: path.to_path_buf(),
            limit: MAX_DATASET_BYTES,
        });
    }
    Ok(text)
}

fn parse_json(text: &str) -> Result<Value, DatasetError> {
    serde_json::from_str(text).map_err(|e| DatasetError::Syntax {
        format: "JSON",
        message: e.to_string(),
    })
}

fn parse_yaml(text: &str) -> Result<Value, DatasetError> {
    serde_yaml_ng::from_str(text).map_err(|e| DatasetError::Syntax {
        format: "YAML",
        message: e.to_string(),
    })
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
