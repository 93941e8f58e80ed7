//! Checks of the output itself: [`Equals`], [`PathCheck`] (JSONPath, RFC 9535) and
//! [`Contains`].

use std::fmt::Debug;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;
use serde_json_path::JsonPath;

use super::error::{EvaluatorError, PathError};
use super::evaluator::{EvalContext, Evaluator, Verdict};

/// The longest rendering of a value in a reason.
const SHOWN: usize = 200;

fn ready<'a>(
    verdict: Result<Verdict, EvaluatorError>,
) -> BoxFuture<'a, Result<Verdict, EvaluatorError>> {
    Box::pin(std::future::ready(verdict))
}

fn shown(text: String) -> String {
    if text.chars().count() <= SHOWN {
        text
    } else {
        let cut: String = text.chars().take(SHOWN).collect();
        format!("{cut}…")
    }
}

fn to_json<T: Serialize>(value: &T, what: &str) -> Result<Value, EvaluatorError> {
    serde_json::to_value(value)
        .map_err(|e| EvaluatorError::new(format!("the {what} does not serialize: {e}")))
}

/// Passes when the output equals the case's expected output (`PartialEq`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Equals;

impl<I: Sync, O: PartialEq + Debug + Sync> Evaluator<I, O> for Equals {
    fn name(&self) -> String {
        "equals".into()
    }

    fn evaluate<'a>(
        &'a self,
        ctx: &'a EvalContext<'a, I, O>,
    ) -> BoxFuture<'a, Result<Verdict, EvaluatorError>> {
        ready(ctx.expected().map(|expected| {
            if ctx.output() == expected {
                Verdict::pass()
            } else {
                Verdict::fail(shown(format!(
                    "expected {expected:?}, got {:?}",
                    ctx.output()
                )))
            }
        }))
    }
}

type Predicate = Arc<dyn Fn(&Value) -> bool + Send + Sync>;

#[derive(Clone)]
enum Expect {
    Exists,
    Equals(Value),
    Expected,
    Metadata(String),
    Predicate(String, Predicate),
}

/// Checks the nodes a JSONPath expression (RFC 9535) selects in the output, serialized to
/// JSON: that there are some, that each equals a value, the expected output's nodes at the
/// same path, a metadata entry, or passes a predicate.
///
/// ```
/// use agentry::eval::PathCheck;
/// use serde_json::json;
///
/// let city = PathCheck::equals("$.city", json!("Lisbon"))?;
/// let outdoor = PathCheck::all("$.days[*].outdoor", "every day outdoors", |v| v == &json!(true))?;
/// assert!(PathCheck::exists("$.days[").is_err());
/// # let _ = (city, outdoor);
/// # Ok::<(), agentry::eval::PathError>(())
/// ```
#[derive(Clone)]
pub struct PathCheck {
    source: String,
    path: JsonPath,
    expect: Expect,
}

impl Debug for PathCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PathCheck")
            .field("path", &self.source)
            .finish_non_exhaustive()
    }
}

impl PathCheck {
    fn new(path: &str, expect: Expect) -> Result<Self, PathError> {
        let parsed = JsonPath::parse(path).map_err(|e| PathError {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        Ok(PathCheck {
            source: path.to_owned(),
            path: parsed,
            expect,
        })
    }

    /// Passes when `path` selects at least one node.
    pub fn exists(path: &str) -> Result<Self, PathError> {
        Self::new(path, Expect::Exists)
    }

    /// Passes when `path` selects at least one node and each equals `value`.
    pub fn equals(path: &str, value: Value) -> Result<Self, PathError> {
        Self::new(path, Expect::Equals(value))
    }

    /// Passes when `path` selects the same nodes in the output as in the case's expected
    /// output (a field of a larger expected value).
    pub fn matches_expected(path: &str) -> Result<Self, PathError> {
        Self::new(path, Expect::Expected)
    }

    /// Passes when `path` selects at least one node and each equals the case's metadata
    /// entry `key`.
    pub fn equals_metadata(path: &str, key: &str) -> Result<Self, PathError> {
        Self::new(path, Expect::Metadata(key.to_owned()))
    }

    /// Passes when `path` selects at least one node and `check` holds for each; the score
    /// is the share of nodes that pass. `what` names the check in the report.
    pub fn all(
        path: &str,
        what: &str,
        check: impl Fn(&Value) -> bool + Send + Sync + 'static,
    ) -> Result<Self, PathError> {
        Self::new(path, Expect::Predicate(what.to_owned(), Arc::new(check)))
    }

    fn judge(&self, output: &Value, expected: Option<&Value>, meta: Option<&Value>) -> Verdict {
        let nodes = self.path.query(output).all();
        let path = &self.source;
        let same = |want: &Value| {
            if nodes.is_empty() {
                return Verdict::fail(format!("`{path}` selects nothing"));
            }
            match nodes.iter().find(|n| **n != want) {
                None => Verdict::pass(),
                Some(bad) => Verdict::fail(shown(format!("`{path}` is {bad}, expected {want}"))),
            }
        };
        match &self.expect {
            Expect::Exists if nodes.is_empty() => {
                Verdict::fail(format!("`{path}` selects nothing"))
            }
            Expect::Exists => Verdict::pass(),
            Expect::Equals(want) => same(want),
            Expect::Metadata(_) => same(meta.unwrap_or(&Value::Null)),
            Expect::Expected => {
                let want = expected
                    .map(|e| self.path.query(e).all())
                    .unwrap_or_default();
                if nodes.is_empty() {
                    Verdict::fail(format!("`{path}` selects nothing"))
                } else if nodes == want {
                    Verdict::pass()
                } else {
                    Verdict::fail(shown(format!(
                        "`{path}` is {}, expected {}",
                        Value::from_iter(nodes.into_iter().cloned()),
                        Value::from_iter(want.into_iter().cloned())
                    )))
                }
            }
            Expect::Predicate(what, check) => {
                if nodes.is_empty() {
                    return Verdict::fail(format!("`{path}` selects nothing"));
                }
                let good = nodes.iter().filter(|n| check(n)).count();
                let verdict = Verdict::scored(good as f64 / nodes.len() as f64, 1.0);
                if verdict.passed {
                    verdict
                } else {
                    verdict.because(format!(
                        "{} of {} nodes at `{path}` fail `{what}`",
                        nodes.len() - good,
                        nodes.len()
                    ))
                }
            }
        }
    }
}

impl<I: Sync, O: Serialize + Sync> Evaluator<I, O> for PathCheck {
    fn name(&self) -> String {
        match &self.expect {
            Expect::Exists => format!("{} exists", self.source),
            Expect::Equals(value) => shown(format!("{} == {value}", self.source)),
            Expect::Expected => format!("{} as expected", self.source),
            Expect::Metadata(key) => format!("{} == metadata.{key}", self.source),
            Expect::Predicate(what, _) => format!("{}: {what}", self.source),
        }
    }

    fn evaluate<'a>(
        &'a self,
        ctx: &'a EvalContext<'a, I, O>,
    ) -> BoxFuture<'a, Result<Verdict, EvaluatorError>> {
        let verdict = (|| {
            let output = to_json(ctx.output(), "output")?;
            let expected = match self.expect {
                Expect::Expected => Some(to_json(ctx.expected()?, "expected output")?),
                _ => None,
            };
            let meta = match &self.expect {
                Expect::Metadata(key) => Some(ctx.case.metadata.get(key).ok_or_else(|| {
                    EvaluatorError::new(format!("case `{}` has no metadata `{key}`", ctx.case.name))
                })?),
                _ => None,
            };
            Ok(self.judge(&output, expected.as_ref(), meta))
        })();
        ready(verdict)
    }
}

#[derive(Clone, Debug)]
enum Needles {
    Fixed(Vec<String>),
    Metadata(String),
}

/// Passes when the output's text contains every needle: the output itself when it
/// serializes to a string, its JSON text otherwise. The score is the share of needles
/// found.
///
/// ```
/// use agentry::eval::Contains;
///
/// let mentions_lisbon = Contains::new("Lisbon").ignore_case();
/// // The needles of each case, from its metadata (a string or a list of strings).
/// let per_case = Contains::from_metadata("must_mention");
/// # let _ = (mentions_lisbon, per_case);
/// ```
#[derive(Clone, Debug)]
pub struct Contains {
    needles: Needles,
    ignore_case: bool,
}

impl Contains {
    /// Looks for `needle`.
    pub fn new(needle: impl Into<String>) -> Self {
        Contains::all([needle])
    }

    /// Looks for each of `needles`.
    pub fn all(needles: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Contains {
            needles: Needles::Fixed(needles.into_iter().map(Into::into).collect()),
            ignore_case: false,
        }
    }

    /// Looks for the case's metadata entry `key`: a string, or a list of strings. A case
    /// without it passes (nothing is required of it).
    pub fn from_metadata(key: impl Into<String>) -> Self {
        Contains {
            needles: Needles::Metadata(key.into()),
            ignore_case: false,
        }
    }

    /// Compares without regard to case.
    pub fn ignore_case(mut self) -> Self {
        self.ignore_case = true;
        self
    }

    fn needles<I, O>(&self, ctx: &EvalContext<'_, I, O>) -> Result<Vec<String>, EvaluatorError> {
        match &self.needles {
            Needles::Fixed(needles) => Ok(needles.clone()),
            Needles::Metadata(key) => match ctx.case.metadata.get(key) {
                None => Ok(Vec::new()),
                Some(Value::String(s)) => Ok(vec![s.clone()]),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|item| item.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| {
                        EvaluatorError::new(format!(
                            "metadata `{key}` of case `{}` is not a list of strings",
                            ctx.case.name
                        ))
                    }),
                Some(_) => Err(EvaluatorError::new(format!(
                    "metadata `{key}` of case `{}` is not a string or a list of strings",
                    ctx.case.name
                ))),
            },
        }
    }
}

impl<I: Sync, O: Serialize + Sync> Evaluator<I, O> for Contains {
    fn name(&self) -> String {
        match &self.needles {
            Needles::Fixed(needles) => shown(format!("contains {}", needles.join(", "))),
            Needles::Metadata(key) => format!("contains metadata.{key}"),
        }
    }

    fn evaluate<'a>(
        &'a self,
        ctx: &'a EvalContext<'a, I, O>,
    ) -> BoxFuture<'a, Result<Verdict, EvaluatorError>> {
        let verdict = (|| {
            let needles = self.needles(ctx)?;
            if needles.is_empty() {
                return Ok(Verdict::pass());
            }
            let text = match to_json(ctx.output(), "output")? {
                Value::String(s) => s,
                other => other.to_string(),
            };
            let fold = |s: &str| {
                if self.ignore_case {
                    s.to_lowercase()
                } else {
                    s.to_owned()
                }
            };
            let haystack = fold(&text);
            let missing: Vec<&String> = needles
                .iter()
                .filter(|n| !haystack.contains(&fold(n)))
                .collect();
            let found = needles.len() - missing.len();
            let verdict = Verdict::scored(found as f64 / needles.len() as f64, 1.0);
            Ok(if missing.is_empty() {
                verdict
            } else {
                let list: Vec<String> = missing.iter().map(|m| format!("`{m}`")).collect();
                verdict.because(format!("missing {}", list.join(", ")))
            })
        })();
        ready(verdict)
    }
}
