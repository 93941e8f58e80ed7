//! What every dialect's walk over a canonical schema shares: the JSON pointer of the node being
//! lowered, `$ref` resolution against the root, a recursion guard and error construction.

use serde_json::{Map, Value};

use super::disjoint::overlapping_pair;
use super::{Dialect, SchemaError};

/// How deep a walk may recurse before the input is refused. Schemas generated from Rust types
/// stay far below this; the guard exists so that hand-built or hostile input cannot overflow
/// the stack (which would abort, not panic).
const MAX_NESTING: usize = 128;

/// The walk's position in the canonical schema and the means to report an error there.
pub(super) struct Cx<'a> {
    pub(super) dialect: Dialect,
    pub(super) root: &'a Value,
    pointer: String,
    nesting: usize,
}

/// Where to return to after [`Cx::enter`] or [`Cx::jump`].
#[must_use]
pub(super) struct Mark {
    len: usize,
}

/// A pointer saved by [`Cx::jump`].
#[must_use]
pub(super) struct Saved {
    pointer: String,
}

/// How a dialect words the errors of [`Cx::union`].
pub(super) struct UnionWords {
    /// Where `anyOf` beside `oneOf` cannot be combined, e.g. "for Gemini".
    pub combined: &'static str,
    /// The dialect, e.g. "Gemini".
    pub dialect: &'static str,
    /// What to do about a `oneOf` whose alternatives overlap.
    pub fix: &'static str,
}

impl<'a> Cx<'a> {
    pub(super) fn new(dialect: Dialect, root: &'a Value) -> Self {
        Cx {
            dialect,
            root,
            pointer: String::new(),
            nesting: 0,
        }
    }

    /// The JSON pointer of the node being lowered.
    pub(super) fn pointer(&self) -> &str {
        &self.pointer
    }

    /// An error about the current node.
    pub(super) fn error(&self, reason: impl Into<String>) -> SchemaError {
        SchemaError::new(self.dialect, self.pointer.clone(), reason)
    }

    /// A schema node as its keywords. `true` (any value, refused in the dialect's words
    /// `any_value`), `false` (no value) and anything but an object are refused.
    pub(super) fn view(&self, node: &'a Value, any_value: &str) -> Result<View<'a>, SchemaError> {
        match node {
            Value::Object(map) => Ok(View::new(map)),
            Value::Bool(true) => Err(self.error(any_value)),
            Value::Bool(false) => {
                Err(self.error("this schema accepts no value at all (`false`); remove the field"))
            }
            _ => Err(self.error("not a JSON schema: expected an object or a boolean")),
        }
    }

    /// The node's `anyOf` or `oneOf` keyword and its alternatives (`None` without either).
    /// Both at once, a value that is not an array, and a `oneOf` with alternatives that may
    /// match the same value (as `anyOf` it would accept more) are refused, worded by `words`.
    pub(super) fn union(
        &self,
        node: View<'a>,
        words: &UnionWords,
    ) -> Result<Option<(&'static str, &'a [Value])>, SchemaError> {
        let (key, alternatives) = match (node.get("anyOf"), node.get("oneOf")) {
            (None, None) => return Ok(None),
            (Some(a), None) => ("anyOf", a),
            (None, Some(o)) => ("oneOf", o),
            (Some(_), Some(_)) => {
                return Err(self.error_at(
                    "oneOf",
                    format!(
                        "`anyOf` and `oneOf` on one schema cannot be combined {}; nest one inside a field",
                        words.combined
                    ),
                ));
            }
        };
        let Value::Array(alternatives) = alternatives else {
            return Err(self.error_at(key, format!("`{key}` must be an array of schemas")));
        };
        if key == "oneOf"
            && let Some((i, j)) = overlapping_pair(self.root, alternatives)
        {
            return Err(self.error_at(
                key,
                format!(
                    "{} has no `oneOf`, and alternatives {i} and {j} may match the same value, so `anyOf` would accept values `oneOf` rejects; {}",
                    words.dialect, words.fix
                ),
            ));
        }
        Ok(Some((key, alternatives)))
    }

    /// An error about one keyword of the current node.
    pub(super) fn error_at(&self, keyword: &str, reason: impl Into<String>) -> SchemaError {
        let mut path = self.pointer.clone();
        push_segment(&mut path, keyword);
        SchemaError::new(self.dialect, path, reason)
    }

    /// Descends into `segment` (a keyword, property name or array index).
    pub(super) fn enter(&mut self, segment: &str) -> Result<Mark, SchemaError> {
        let len = self.pointer.len();
        push_segment(&mut self.pointer, segment);
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(self.error(format!(
                "the schema nests deeper than {MAX_NESTING} levels; flatten the type"
            )));
        }
        Ok(Mark { len })
    }

    /// Descends into array element `index`.
    pub(super) fn enter_index(&mut self, index: usize) -> Result<Mark, SchemaError> {
        self.enter(&index.to_string())
    }

    /// Returns to where [`Cx::enter`] was called.
    pub(super) fn leave(&mut self, mark: Mark) {
        self.pointer.truncate(mark.len);
        self.nesting -= 1;
    }

    /// Moves to the node a local `$ref` points at (its pointer is the reference's fragment).
    pub(super) fn jump(&mut self, reference: &str) -> Result<Saved, SchemaError> {
        let fragment = reference.strip_prefix('#').unwrap_or(reference);
        let pointer = std::mem::replace(&mut self.pointer, fragment.to_string());
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(self.error(format!(
                "references nest deeper than {MAX_NESTING} levels; flatten the type"
            )));
        }
        Ok(Saved { pointer })
    }

    /// Returns to where [`Cx::jump`] was called.
    pub(super) fn back(&mut self, saved: Saved) {
        self.pointer = saved.pointer;
        self.nesting -= 1;
    }

    /// Resolves the `$ref` keyword of the current node.
    pub(super) fn resolve(
        &self,
        reference: &'a Value,
    ) -> Result<(&'a str, &'a Value), SchemaError> {
        let Value::String(reference) = reference else {
            return Err(self.error_at("$ref", "`$ref` must be a string such as `#/$defs/Name`"));
        };
        match resolve(self.root, reference) {
            Some(target) => Ok((reference, target)),
            None if !reference.starts_with('#') => Err(self.error_at(
                "$ref",
                format!(
                    "`{reference}` points outside this schema; only local references such as `#/$defs/Name` can be sent to a provider"
                ),
            )),
            None => Err(self.error_at(
                "$ref",
                format!(
                    "`{reference}` does not resolve to a definition in this schema; add it under `$defs`"
                ),
            )),
        }
    }
}

/// Records that a dialect refused a schema (the caller gets the error; this is for tracing).
pub(super) fn log_refusal(error: &SchemaError) {
    tracing::debug!(dialect = %error.dialect, path = %error.path, reason = %error.reason, "schema not representable");
}

/// The node a local reference (`#`, `#/$defs/Name`, any `#/json/pointer`) points at.
pub(super) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        Some(root)
    } else {
        root.pointer(fragment)
    }
}

/// Appends one escaped segment (`~` → `~0`, `/` → `~1`) to a JSON pointer.
pub(super) fn push_segment(pointer: &mut String, segment: &str) {
    pointer.push('/');
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// The `type` keyword as a list of names; `None` when it is malformed.
pub(super) fn type_names(value: &Value) -> Option<Vec<&str>> {
    const NAMES: [&str; 7] = [
        "null", "boolean", "object", "array", "number", "string", "integer",
    ];
    match value {
        Value::String(name) if NAMES.contains(&name.as_str()) => Some(vec![name.as_str()]),
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .map(|item| match item {
                Value::String(name) if NAMES.contains(&name.as_str()) => Some(name.as_str()),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// The error for a malformed `type` keyword.
pub(super) fn bad_type(cx: &Cx<'_>) -> SchemaError {
    cx.error_at(
        "type",
        "`type` must be one of null, boolean, object, array, number, string, integer, or a non-empty array of them",
    )
}

/// A schema object seen without some of its keywords (those a caller handles itself).
#[derive(Clone, Copy)]
pub(super) struct View<'a> {
    pub(super) map: &'a Map<String, Value>,
    skip: &'static [&'static str],
}

impl<'a> View<'a> {
    pub(super) fn new(map: &'a Map<String, Value>) -> Self {
        View { map, skip: &[] }
    }

    /// The same object without `keywords`.
    pub(super) fn without(self, keywords: &'static [&'static str]) -> Self {
        View {
            map: self.map,
            skip: keywords,
        }
    }

    pub(super) fn get(&self, keyword: &str) -> Option<&'a Value> {
        if self.skip.contains(&keyword) {
            None
        } else {
            self.map.get(keyword)
        }
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (&'a String, &'a Value)> + '_ {
        self.map
            .iter()
            .filter(|(key, _)| !self.skip.contains(&key.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::schema::{Dialect, lower};

    /// An object whose one field `x` has schema `field`.
    fn with_field(field: serde_json::Value) -> serde_json::Value {
        json!({ "type": "object", "properties": { "x": field }, "required": ["x"] })
    }

    /// The union errors both lowering dialects share, each in its own words.
    #[test]
    fn union_errors_name_the_dialect() {
        let both =
            with_field(json!({ "anyOf": [{ "type": "string" }], "oneOf": [{ "type": "string" }] }));
        let overlapping =
            with_field(json!({ "oneOf": [{ "type": "string" }, { "type": "string" }] }));
        let not_array = with_field(json!({ "anyOf": { "type": "string" } }));
        for (dialect, combined, fix) in [
            (Dialect::Gemini, "for Gemini", "give the enum a serde tag"),
            (
                Dialect::OpenAiStrict,
                "in OpenAI strict mode",
                "give the enum a serde tag, or set `strict = false`",
            ),
        ] {
            let name = match dialect {
                Dialect::Gemini => "Gemini",
                _ => "OpenAI strict mode",
            };
            let err = lower(&both, dialect).unwrap_err();
            assert_eq!(err.path, "/properties/x/oneOf");
            assert_eq!(
                err.reason,
                format!(
                    "`anyOf` and `oneOf` on one schema cannot be combined {combined}; nest one inside a field"
                )
            );
            let err = lower(&overlapping, dialect).unwrap_err();
            assert_eq!(err.path, "/properties/x/oneOf");
            assert_eq!(
                err.reason,
                format!(
                    "{name} has no `oneOf`, and alternatives 0 and 1 may match the same value, so `anyOf` would accept values `oneOf` rejects; {fix}"
                )
            );
            let err = lower(&not_array, dialect).unwrap_err();
            assert_eq!(
                (err.path.as_str(), err.reason.as_str()),
                ("/properties/x/anyOf", "`anyOf` must be an array of schemas")
            );
        }
    }
}
