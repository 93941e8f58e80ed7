//! The size limits OpenAI documents for strict schemas, counted during the walk.
//!
//! OpenAI's structured-outputs guide: at most 5000 object properties in total, 10 levels of
//! object nesting, 1000 enum values in total, 120 000 characters of property names,
//! definition names, enum and const values, and 15 000 characters of values for one enum of
//! more than 250 values. Exceeding one makes the API reject the request, so the SDK reports
//! it first, with the place that tipped it over.

use std::collections::HashMap;

use serde_json::Value;

use super::SchemaError;
use super::walk::Cx;

const MAX_PROPERTIES: usize = 5000;
const MAX_DEPTH: usize = 10;
const MAX_ENUM_VALUES: usize = 1000;
const MAX_STRING_CHARS: usize = 120_000;
const LARGE_ENUM: usize = 250;
const MAX_LARGE_ENUM_CHARS: usize = 15_000;

/// Counters for one walk, plus the graph needed to measure nesting through `$ref`s.
#[derive(Default)]
pub(super) struct Limits {
    properties: usize,
    enum_values: usize,
    string_chars: usize,
    /// Per scope (`#` or a definition's reference): the deepest object nesting found inside
    /// it, and where.
    deepest: HashMap<String, (usize, String)>,
    /// References: from scope, at nesting depth, to scope.
    edges: Vec<(String, usize, String)>,
}

impl Limits {
    pub(super) fn property(&mut self, cx: &Cx<'_>, name: &str) -> Result<(), SchemaError> {
        self.properties += 1;
        if self.properties > MAX_PROPERTIES {
            return Err(cx.error(format!(
                "OpenAI strict mode allows at most {MAX_PROPERTIES} object properties in one schema; split the tool or set `strict = false`"
            )));
        }
        self.chars(cx, name.chars().count())
    }

    pub(super) fn definition(&mut self, cx: &Cx<'_>, name: &str) -> Result<(), SchemaError> {
        self.chars(cx, name.chars().count())
    }

    /// Counts the values of an `enum` (or the one value of a `const`).
    pub(super) fn values(
        &mut self,
        cx: &Cx<'_>,
        keyword: &str,
        values: &[Value],
    ) -> Result<(), SchemaError> {
        self.enum_values += values.len();
        if self.enum_values > MAX_ENUM_VALUES {
            return Err(cx.error_at(
                keyword,
                format!(
                    "OpenAI strict mode allows at most {MAX_ENUM_VALUES} enum values in one schema; use a string field described in words, or set `strict = false`"
                ),
            ));
        }
        let chars: usize = values
            .iter()
            .filter_map(Value::as_str)
            .map(|s| s.chars().count())
            .sum();
        if values.len() > LARGE_ENUM && chars > MAX_LARGE_ENUM_CHARS {
            return Err(cx.error_at(
                keyword,
                format!(
                    "OpenAI strict mode allows at most {MAX_LARGE_ENUM_CHARS} characters of values in an enum of more than {LARGE_ENUM} values; shorten or split the enum, or set `strict = false`"
                ),
            ));
        }
        self.chars(cx, chars)
    }

    fn chars(&mut self, cx: &Cx<'_>, n: usize) -> Result<(), SchemaError> {
        self.string_chars += n;
        if self.string_chars > MAX_STRING_CHARS {
            return Err(cx.error(format!(
                "OpenAI strict mode allows at most {MAX_STRING_CHARS} characters of property names, definition names and enum values in one schema; shorten them or set `strict = false`"
            )));
        }
        Ok(())
    }

    /// An object schema at nesting `depth` (1 for an outermost object) inside `scope`.
    pub(super) fn object(&mut self, scope: &str, depth: usize, cx: &Cx<'_>) {
        let entry = self
            .deepest
            .entry(scope.to_string())
            .or_insert((0, String::new()));
        if depth > entry.0 {
            *entry = (depth, cx.pointer().to_string());
        }
    }

    /// A `$ref` to `target` at nesting `depth` inside `scope`.
    pub(super) fn reference(&mut self, scope: &str, depth: usize, target: &str) {
        self.edges
            .push((scope.to_string(), depth, target.to_string()));
    }

    /// Checks the nesting of the whole schema, following references from the root. A
    /// reference back into a definition being measured (recursion) adds no depth: the
    /// provider bounds how deep the model actually recurses.
    pub(super) fn check_depth(&self, cx: &Cx<'_>) -> Result<(), SchemaError> {
        let mut memo = HashMap::new();
        let mut in_progress = Vec::new();
        let (depth, path) = self.depth_of("#", &mut memo, &mut in_progress);
        if depth > MAX_DEPTH {
            return Err(super::SchemaError::new(
                cx.dialect,
                path,
                format!(
                    "OpenAI strict mode allows at most {MAX_DEPTH} levels of nested objects and this schema has {depth}; flatten the type or set `strict = false`"
                ),
            ));
        }
        Ok(())
    }

    fn depth_of(
        &self,
        scope: &str,
        memo: &mut HashMap<String, (usize, String)>,
        in_progress: &mut Vec<String>,
    ) -> (usize, String) {
        if let Some(known) = memo.get(scope) {
            return known.clone();
        }
        if in_progress.iter().any(|s| s == scope) {
            return (0, String::new());
        }
        in_progress.push(scope.to_string());
        let mut best = self.deepest.get(scope).cloned().unwrap_or_default();
        for (from, at, target) in &self.edges {
            if from != scope {
                continue;
            }
            let (inner, path) = self.depth_of(target, memo, in_progress);
            if at + inner > best.0 {
                best = (at + inner, path);
            }
        }
        in_progress.pop();
        memo.insert(scope.to_string(), best.clone());
        best
    }
}
