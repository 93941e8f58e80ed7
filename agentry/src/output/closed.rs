//! Holding an answer to the closed schema the provider was sent.
//!
//! In OpenAI's strict dialect every object is closed (`additionalProperties: false`). serde
//! ignores unknown fields unless a type says `deny_unknown_fields`, so an answer with a field
//! the schema forbids would otherwise be accepted; when the request sent a closed schema, such
//! an answer is an [`AnswerError::Schema`] naming the field, and the model is asked again.

use std::sync::OnceLock;

use serde_json::Value;

use super::error::AnswerError;
use crate::schema::validator::{Validator, ViolationKind};
use crate::schema::{Dialect, lower};

/// The closed (strict) form of an output's object schema, compiled on first use.
#[derive(Default)]
pub(crate) struct ClosedSchema {
    validator: OnceLock<Option<Validator>>,
}

impl std::fmt::Debug for ClosedSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClosedSchema").finish_non_exhaustive()
    }
}

impl ClosedSchema {
    /// The first field of `json` that the strict form of `object_schema` does not allow.
    pub(crate) fn extra_field(&self, object_schema: &Value, json: &str) -> Option<AnswerError> {
        self.validator(object_schema)?;
        let value: Value = match serde_json::from_str(json) {
            Ok(value) => value,
            // Too deep for a `Value` (serde_json's recursion limit) is checked here: the typed
            // parse that follows skips an unknown field without that limit, so a forbidden
            // field nested deeper would pass unseen.
            Err(_) if nesting_depth(json) > MAX_DEPTH => {
                return Some(AnswerError::Schema {
                    path: "$".to_string(),
                    message: format!(
                        "the answer nests objects and arrays more than {MAX_DEPTH} levels deep"
                    ),
                });
            }
            // Malformed JSON is reported by the parse that follows.
            Err(_) => return None,
        };
        self.extra_field_in(object_schema, &value)
    }

    /// The compiled closed schema (`None` when it does not compile: nothing is checked).
    fn validator(&self, object_schema: &Value) -> Option<&Validator> {
        self.validator
            .get_or_init(|| {
                let strict = lower(object_schema, Dialect::OpenAiStrict).ok()?;
                Validator::new(&strict).ok()
            })
            .as_ref()
    }

    /// [`extra_field`](Self::extra_field) of an answer already parsed into `value`.
    pub(crate) fn extra_field_in(
        &self,
        object_schema: &Value,
        value: &Value,
    ) -> Option<AnswerError> {
        let validator = self.validator(object_schema)?;
        // The fast check first: error collection runs only for an invalid answer.
        if validator.is_valid(value) {
            return None;
        }
        validator.violations(value).into_iter().find_map(|error| {
            let ViolationKind::AdditionalProperties { unexpected } = error.kind else {
                return None;
            };
            let names: Vec<String> = unexpected.iter().map(|n| format!("`{n}`")).collect();
            Some(AnswerError::Schema {
                path: json_path(&error.instance_path),
                message: format!(
                    "unknown field{} {}: the schema allows no other fields",
                    if names.len() == 1 { "" } else { "s" },
                    names.join(", ")
                ),
            })
        })
    }
}

/// The deepest nesting of a parsed `Value`: serde_json's recursion limit.
const MAX_DEPTH: usize = 127;

/// How deeply `json` nests objects and arrays (brackets inside strings do not count).
fn nesting_depth(json: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for byte in json.bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// A JSON pointer (`/days/0`) as this module's paths (`$.days[0]`).
fn json_path(pointer: &str) -> String {
    let mut out = String::from("$");
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{segment}]"));
        } else {
            out.push('.');
            out.push_str(&segment);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_extra_field_is_named_with_its_path() {
        let schema = json!({
            "type": "object",
            "properties": {
                "days": { "type": "array", "items": {
                    "type": "object", "properties": { "city": { "type": "string" } },
                    "required": ["city"]
                } }
            },
            "required": ["days"]
        });
        let closed = ClosedSchema::default();
        let err = closed
            .extra_field(&schema, r#"{"days":[{"city":"Oslo","mood":"grey"}]}"#)
            .unwrap();
        assert_eq!(
            err.to_string(),
            "at `$.days[0]`: unknown field `mood`: the schema allows no other fields"
        );
        assert!(
            closed
                .extra_field(&schema, r#"{"days":[{"city":"Oslo"}]}"#)
                .is_none()
        );
    }

    #[test]
    fn an_extra_field_nested_past_the_parsers_limit_is_an_invalid_answer() {
        let schema = json!({
            "type": "object",
            "properties": { "city": { "type": "string" } },
            "required": ["city"]
        });
        let closed = ClosedSchema::default();
        for depth in [126, 200, 10_000] {
            let json = format!(
                r#"{{"city":"Oslo","extra":{}{}}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            );
            let err = closed.extra_field(&schema, &json).unwrap();
            assert!(err.to_string().starts_with("at `$"), "{depth}: {err}");
        }
        // Brackets inside strings are text, not nesting.
        let text = format!(r#"{{"city":"{}\"{}"}}"#, "[".repeat(500), "{".repeat(500));
        assert_eq!(nesting_depth(&text), 1);
        assert!(closed.extra_field(&schema, &text).is_none());
    }
}
