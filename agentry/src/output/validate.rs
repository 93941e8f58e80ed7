//! Run-time checks of a parsed output: field constraints and custom validators, each failure
//! reported with the JSON path of the offending value.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt;

/// One failed check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Where, as a JSON path: `$` for the root, `$.days[0].city` below it.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at `{}`: {}", self.path, self.message)
    }
}

/// Every failed check of one value (never empty).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ValidationError {
    violations: Vec<Violation>,
}

impl ValidationError {
    /// The failed checks, in field order.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.violations.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

/// The state of one validation: the JSON path being checked and the failures so far.
///
/// Generated [`validate`](super::StructuredOutput::validate) methods descend with
/// [`Validation::field`] and [`Validation::index`] and report with [`Validation::fail`].
#[derive(Debug)]
pub struct Validation {
    path: String,
    violations: Vec<Violation>,
}

impl Default for Validation {
    fn default() -> Self {
        Validation::new()
    }
}

impl Validation {
    /// A validation at the root (`$`).
    pub fn new() -> Self {
        Validation {
            path: String::from("$"),
            violations: Vec::new(),
        }
    }

    /// A validation whose root is at `path` (e.g. `$.value` for a wrapped output).
    pub fn at(path: impl Into<String>) -> Self {
        Validation {
            path: path.into(),
            violations: Vec::new(),
        }
    }

    /// The current JSON path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Records a failure at the current path.
    pub fn fail(&mut self, message: impl Into<String>) {
        self.violations.push(Violation {
            path: self.path.clone(),
            message: message.into(),
        });
    }

    /// Runs `f` with the path extended by an object key.
    pub fn field<R>(&mut self, name: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        let len = self.path.len();
        push_key(&mut self.path, name);
        let out = f(self);
        self.path.truncate(len);
        out
    }

    /// Runs `f` with the path extended by an array index.
    pub fn index<R>(&mut self, index: usize, f: impl FnOnce(&mut Self) -> R) -> R {
        use std::fmt::Write;
        let len = self.path.len();
        let _ = write!(self.path, "[{index}]");
        let out = f(self);
        self.path.truncate(len);
        out
    }

    /// `Ok` when nothing failed, else every failure.
    pub fn finish(self) -> Result<(), ValidationError> {
        if self.violations.is_empty() {
            Ok(())
        } else {
            Err(ValidationError {
                violations: self.violations,
            })
        }
    }
}

fn push_key(path: &mut String, name: &str) {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        path.push('.');
        path.push_str(name);
    } else {
        path.push('[');
        path.push_str(&serde_json::Value::from(name).to_string());
        path.push(']');
    }
}

/// A value `#[output(range(..))]` can check: a number, or an optional one.
#[diagnostic::on_unimplemented(
    message = "`range` needs a number field, and `{Self}` is not a number",
    label = "`#[output(range(..))]` is on a field of type `{Self}`",
    note = "use `range` on integer or float fields (or `Option`s of them); for strings and lists use `length(min = .., max = ..)`"
)]
pub trait RangeValue {
    /// The number, or `None` when there is nothing to check (an absent optional).
    fn range_value(&self) -> Option<f64>;
}

macro_rules! range_numbers {
    ($($t:ty),*) => {$(
        impl RangeValue for $t {
            fn range_value(&self) -> Option<f64> {
                Some(*self as f64)
            }
        }
    )*};
}
range_numbers!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
);

impl<T: RangeValue> RangeValue for Option<T> {
    fn range_value(&self) -> Option<f64> {
        self.as_ref().and_then(RangeValue::range_value)
    }
}

impl<T: RangeValue + ?Sized> RangeValue for Box<T> {
    fn range_value(&self) -> Option<f64> {
        (**self).range_value()
    }
}

/// What a length counts, which decides the schema keywords.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthKind {
    /// Characters of a string (`minLength` / `maxLength`).
    Chars,
    /// Items of an array (`minItems` / `maxItems`).
    Items,
    /// Entries of an object (`minProperties` / `maxProperties`).
    Properties,
}

impl LengthKind {
    /// The JSON Schema keywords for the lower and the upper bound.
    pub fn keywords(self) -> (&'static str, &'static str) {
        match self {
            LengthKind::Chars => ("minLength", "maxLength"),
            LengthKind::Items => ("minItems", "maxItems"),
            LengthKind::Properties => ("minProperties", "maxProperties"),
        }
    }

    fn noun(self) -> &'static str {
        match self {
            LengthKind::Chars => "characters",
            LengthKind::Items => "items",
            LengthKind::Properties => "entries",
        }
    }
}

/// A value `#[output(length(..))]` can check: a string, a collection, or an optional one.
#[diagnostic::on_unimplemented(
    message = "`length` needs a string or collection field, and `{Self}` is neither",
    label = "`#[output(length(..))]` is on a field of type `{Self}`",
    note = "use `length` on `String`, `Vec<T>`, sets and maps (or `Option`s of them); for numbers use `range(min = .., max = ..)`"
)]
pub trait LengthValue {
    /// What the length counts.
    const KIND: LengthKind;
    /// The length, or `None` when there is nothing to check (an absent optional).
    fn length_value(&self) -> Option<usize>;
}

impl LengthValue for String {
    const KIND: LengthKind = LengthKind::Chars;
    fn length_value(&self) -> Option<usize> {
        Some(self.chars().count())
    }
}

impl LengthValue for Box<str> {
    const KIND: LengthKind = LengthKind::Chars;
    fn length_value(&self) -> Option<usize> {
        Some(self.chars().count())
    }
}

macro_rules! length_collections {
    ($kind:ident: $($t:ty),*) => {$(
        impl<T> LengthValue for $t {
            const KIND: LengthKind = LengthKind::$kind;
            fn length_value(&self) -> Option<usize> {
                Some(self.len())
            }
        }
    )*};
}
length_collections!(Items: Vec<T>, VecDeque<T>, BTreeSet<T>, HashSet<T>, Box<[T]>);
length_collections!(Properties: BTreeMap<String, T>, HashMap<String, T>);

impl<T: LengthValue> LengthValue for Option<T> {
    const KIND: LengthKind = T::KIND;
    fn length_value(&self) -> Option<usize> {
        self.as_ref().and_then(LengthValue::length_value)
    }
}

/// A value `#[output(pattern = "..")]` can check: a string, a `char`, or an optional one.
#[diagnostic::on_unimplemented(
    message = "`pattern` needs a string field, and `{Self}` is not a string",
    label = "`#[output(pattern = \"..\")]` is on a field of type `{Self}`",
    note = "use `pattern` on `String` or `char` fields (or an `Option` of one)"
)]
pub trait PatternValue {
    /// The text, or `None` when there is nothing to check (an absent optional).
    fn pattern_value(&self) -> Option<Cow<'_, str>>;
}

impl PatternValue for String {
    fn pattern_value(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(self))
    }
}

impl PatternValue for Box<str> {
    fn pattern_value(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(self))
    }
}

impl PatternValue for char {
    fn pattern_value(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Owned(self.to_string()))
    }
}

impl<T: PatternValue> PatternValue for Option<T> {
    fn pattern_value(&self) -> Option<Cow<'_, str>> {
        self.as_ref().and_then(PatternValue::pattern_value)
    }
}

/// Checks `min <= value <= max`.
pub fn check_range<T: RangeValue + ?Sized>(
    value: &T,
    min: Option<f64>,
    max: Option<f64>,
    v: &mut Validation,
) {
    let Some(x) = value.range_value() else {
        return;
    };
    if let Some(min) = min
        && x.partial_cmp(&min).is_none_or(|o| o.is_lt())
    {
        v.fail(format!("{} is less than the minimum {}", num(x), num(min)));
    }
    if let Some(max) = max
        && x.partial_cmp(&max).is_none_or(|o| o.is_gt())
    {
        v.fail(format!(
            "{} is greater than the maximum {}",
            num(x),
            num(max)
        ));
    }
}

/// Checks `min <= length <= max`.
pub fn check_length<T: LengthValue + ?Sized>(
    value: &T,
    min: Option<usize>,
    max: Option<usize>,
    v: &mut Validation,
) {
    let Some(len) = value.length_value() else {
        return;
    };
    let noun = T::KIND.noun();
    if let Some(min) = min
        && len < min
    {
        v.fail(format!("has {len} {noun}, fewer than the minimum {min}"));
    }
    if let Some(max) = max
        && len > max
    {
        v.fail(format!("has {len} {noun}, more than the maximum {max}"));
    }
}

/// Checks that the string matches `regex` (anywhere, as JSON Schema's `pattern` does).
pub fn check_pattern<T: PatternValue + ?Sized>(
    value: &T,
    regex: &regex::Regex,
    v: &mut Validation,
) {
    if let Some(s) = value.pattern_value()
        && !regex.is_match(&s)
    {
        v.fail(format!(
            "{} does not match the pattern `{}`",
            serde_json::Value::from(s.as_ref()),
            regex.as_str()
        ));
    }
}

/// Runs a custom validator and records its message. The validator takes the value, or what
/// it borrows as (`&str` for a `String`, `&[T]` for a `Vec<T>`).
pub fn check_custom<T: ?Sized + ValidatedAs<V>, V: ?Sized>(
    value: &T,
    validator: fn(&V) -> Result<(), String>,
    v: &mut Validation,
) {
    if let Err(message) = validator(value.lend()) {
        v.fail(message);
    }
}

/// What a value lends a custom validator: itself, or what it borrows as
/// ([`Borrow`](std::borrow::Borrow)). Implemented for every such pair; never by hand.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a validator taking `&{V}` cannot check a `{Self}`",
    label = "this validator takes `&{V}`",
    note = "a validator is `fn(&{Self}) -> Result<(), String>`, or takes what a `{Self}` borrows as (`&str` for a `String`, `&[T]` for a `Vec<T>`)"
)]
pub trait ValidatedAs<V: ?Sized> {
    /// The value as the validator takes it.
    fn lend(&self) -> &V;
}

impl<T: ?Sized + std::borrow::Borrow<V>, V: ?Sized> ValidatedAs<V> for T {
    fn lend(&self) -> &V {
        self.borrow()
    }
}

/// Formats a bound without a useless `.0`.
fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_messages() {
        let mut v = Validation::new();
        v.field("days", |v| {
            v.index(2, |v| {
                v.field("city", |v| check_length(&String::new(), Some(1), None, v))
            })
        });
        v.field("a b", |v| check_range(&11u8, Some(0.0), Some(10.0), v));
        check_range(&Some(2.5f64), Some(0.0), Some(10.0), &mut v);
        check_range(&None::<i32>, Some(0.0), None, &mut v);
        let re = regex::Regex::new("^[A-Z]{3}$").unwrap();
        v.field("code", |v| check_pattern(&"eur".to_string(), &re, v));
        let err = v.finish().unwrap_err();
        let lines: Vec<String> = err.violations().iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "at `$.days[2].city`: has 0 characters, fewer than the minimum 1",
                "at `$[\"a b\"]`: 11 is greater than the maximum 10",
                "at `$.code`: \"eur\" does not match the pattern `^[A-Z]{3}$`",
            ]
        );
    }

    #[test]
    fn nan_fails_both_bounds() {
        let mut v = Validation::new();
        check_range(&f64::NAN, Some(0.0), Some(1.0), &mut v);
        assert_eq!(v.finish().unwrap_err().violations().len(), 2);
    }

    #[test]
    fn length_counts_chars_not_bytes() {
        let mut v = Validation::new();
        check_length(&"héé".to_string(), None, Some(3), &mut v);
        check_length(&vec![1, 2], Some(3), None, &mut v);
        let err = v.finish().unwrap_err();
        assert_eq!(err.violations().len(), 1);
        assert!(err.violations()[0].message.contains("2 items"));
    }
}
