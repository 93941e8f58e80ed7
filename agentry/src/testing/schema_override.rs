//! Checking a schema override (`#[arg(schema_with = ..)]`, `#[tool(schema = ..)]`) against
//! the type whose values it describes: every value the schema allows that the checks try
//! must deserialize into the type.

use std::any::type_name;

use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::schema_values::{example_value, example_value_in, minimal_value};
use crate::tool::{SchemaFn, Tool};

/// How much of a sample a message quotes.
const QUOTE_LIMIT: usize = 200;
/// At most this many values are tried per alternative list (`enum`, `oneOf`, `anyOf`).
const MAX_ALTERNATIVES: usize = 32;

/// Where a checked sample came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleOrigin {
    /// The caller's sample at this index.
    Given(usize),
    /// Generated from the schema.
    Generated,
}

impl std::fmt::Display for SampleOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SampleOrigin::Given(index) => write!(f, "sample {index}"),
            SampleOrigin::Generated => f.write_str("a sample generated from the schema"),
        }
    }
}

/// Why a schema override does not fit its type.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaOverrideError {
    /// The override is not a JSON Schema the validator can compile.
    #[error("the schema override is not a valid JSON Schema: {0}")]
    InvalidSchema(String),
    /// A tool's arguments schema is not an object schema, which providers require.
    #[error(
        "the arguments schema of tool `{tool}` must be an object schema (`\"type\": \"object\"`), not {found}"
    )]
    NotAnObject {
        /// The tool's name.
        tool: String,
        /// What the schema's `type` is instead.
        found: String,
    },
    /// A sample the caller gave is not valid under the schema: the sample or the schema is
    /// wrong.
    #[error("{origin} ({sample}) is not valid under the schema override: {reason} (at `{path}`)")]
    SampleOutsideSchema {
        /// Which sample.
        origin: SampleOrigin,
        /// The sample, shortened.
        sample: String,
        /// The validator's message.
        reason: String,
        /// The JSON pointer of the offending part of the sample.
        path: String,
    },
    /// A value the schema allows does not deserialize into the type: the model could send it
    /// and the call would fail.
    #[error(
        "{origin} ({sample}) is valid under the schema override but does not deserialize into `{type_name}`: {message} (at `{path}`)"
    )]
    Rejected {
        /// Which sample.
        origin: SampleOrigin,
        /// The sample, shortened.
        sample: String,
        /// The type it was deserialized into.
        type_name: &'static str,
        /// serde's message.
        message: String,
        /// Where in the sample serde failed (`.` for the root).
        path: String,
    },
    /// No sample was given and none generated from the schema is valid under it (a pattern
    /// or keyword the generator does not follow).
    #[error(
        "no sample to check: no value generated from the schema is valid under it; pass samples"
    )]
    NoSample,
}

/// Checks a schema override against `T`, the parameter type (`#[arg(schema_with = ..)]`) or
/// the tool's arguments (`#[tool(schema = ..)]`) it describes: `schema` must be a valid JSON
/// Schema, each of `samples` must be valid under it, and every sample — `samples` and the
/// values generated from the schema (one with every property filled, one with only the
/// required ones and null where null is allowed, one per `enum` value and `oneOf`/`anyOf`
/// branch at the top level and in each top-level property) — must deserialize into `T`.
///
/// Returns the samples checked. The schema is made with the settings the SDK uses for tool
/// arguments (JSON Schema 2020-12, for deserialization).
///
/// ```
/// use agentry::schemars::{Schema, SchemaGenerator, json_schema};
/// use agentry::testing::check_schema_override;
/// use serde_json::json;
///
/// // `std::time::SystemTime` parses from serde's own form and has no `JsonSchema`.
/// fn system_time(_: &mut SchemaGenerator) -> Schema {
///     json_schema!({
///         "type": "object",
///         "properties": {
///             "secs_since_epoch": { "type": "integer", "minimum": 0 },
///             "nanos_since_epoch": { "type": "integer", "minimum": 0, "maximum": 999999999 }
///         },
///         "required": ["secs_since_epoch", "nanos_since_epoch"],
///         "additionalProperties": false
///     })
/// }
///
/// let checked = check_schema_override::<std::time::SystemTime>(
///     system_time,
///     &[json!({ "secs_since_epoch": 1_700_000_000, "nanos_since_epoch": 0 })],
/// )
/// .unwrap();
/// assert!(checked.len() >= 2);
///
/// // A schema that lets the model leave out a field the type needs is caught.
/// fn too_loose(_: &mut SchemaGenerator) -> Schema {
///     json_schema!({
///         "type": "object",
///         "properties": { "secs_since_epoch": { "type": "integer", "minimum": 0 } }
///     })
/// }
/// let error = check_schema_override::<std::time::SystemTime>(too_loose, &[]).unwrap_err();
/// assert!(error.to_string().contains("nanos_since_epoch"), "{error}");
/// ```
pub fn check_schema_override<T: DeserializeOwned>(
    schema: impl SchemaFn,
    samples: &[Value],
) -> Result<Vec<Value>, SchemaOverrideError> {
    let mut generator = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator();
    let mut made = schema.make_schema(&mut generator);
    let definitions = generator.take_definitions(true);
    if !definitions.is_empty() {
        made.ensure_object()
            .insert("$defs".to_string(), Value::Object(definitions));
    }
    check_schema::<T>(made.as_value(), samples)
}

/// [`check_schema_override`] for a whole tool: checks the arguments schema the model is shown
/// (its [`ToolDefinition`](crate::ToolDefinition)'s `parameters`, with every
/// `#[arg(schema_with = ..)]` and `#[tool(schema = ..)]` override in it) against the
/// arguments the tool parses (its `Args`, which refuses unknown fields). The schema must be
/// an object schema.
///
/// ```
/// use agentry::prelude::*;
/// use agentry::schemars::{Schema, SchemaGenerator, json_schema};
/// use serde_json::json;
///
/// fn seconds(_: &mut SchemaGenerator) -> Schema {
///     json_schema!({ "type": "integer", "minimum": 1, "maximum": 3600 })
/// }
///
/// /// Wait a while.
/// #[tool]
/// fn wait(#[arg(schema_with = seconds)] duration: std::time::Duration) -> String {
///     format!("waited {duration:?}")
/// }
///
/// // `Duration` deserializes from `{ "secs": .., "nanos": .. }`, not from a number.
/// let error = agentry::testing::check_tool_schema::<wait>(&[json!({ "duration": 5 })])
///     .unwrap_err();
/// assert!(error.to_string().contains("duration"), "{error}");
/// ```
pub fn check_tool_schema<T: Tool>(samples: &[Value]) -> Result<Vec<Value>, SchemaOverrideError> {
    let schema = &T::definition().parameters;
    match schema.get("type") {
        Some(Value::String(ty)) if ty == "object" => {}
        other => {
            return Err(SchemaOverrideError::NotAnObject {
                tool: T::NAME.to_string(),
                found: other.map_or_else(|| "a schema without `type`".to_string(), quote),
            });
        }
    }
    check_schema::<T::Args>(schema, samples)
}

fn check_schema<T: DeserializeOwned>(
    schema: &Value,
    samples: &[Value],
) -> Result<Vec<Value>, SchemaOverrideError> {
    let validator = jsonschema::validator_for(schema)
        .map_err(|e| SchemaOverrideError::InvalidSchema(e.to_string()))?;
    for (index, sample) in samples.iter().enumerate() {
        if let Some(error) = validator.iter_errors(sample).next() {
            return Err(SchemaOverrideError::SampleOutsideSchema {
                origin: SampleOrigin::Given(index),
                sample: quote(sample),
                reason: error.to_string(),
                path: error.instance_path().as_str().to_string(),
            });
        }
    }
    let mut tried: Vec<(SampleOrigin, Value)> = samples
        .iter()
        .enumerate()
        .map(|(index, sample)| (SampleOrigin::Given(index), sample.clone()))
        .collect();
    for generated in generated_samples(schema) {
        // The generator follows most keywords, not all: a value it gets wrong says nothing
        // about the override.
        if validator.is_valid(&generated) && !tried.iter().any(|(_, v)| *v == generated) {
            tried.push((SampleOrigin::Generated, generated));
        }
    }
    if tried.is_empty() {
        return Err(SchemaOverrideError::NoSample);
    }
    for (origin, sample) in &tried {
        if let Err(error) = serde_path_to_error::deserialize::<_, T>(sample) {
            return Err(SchemaOverrideError::Rejected {
                origin: *origin,
                sample: quote(sample),
                type_name: type_name::<T>(),
                path: error.path().to_string(),
                message: error.into_inner().to_string(),
            });
        }
    }
    Ok(tried.into_iter().map(|(_, sample)| sample).collect())
}

/// The values tried beside the caller's: the full and the minimal example, then one per
/// alternative of the schema itself and of each of its properties.
fn generated_samples(schema: &Value) -> Vec<Value> {
    let full = example_value(schema);
    let mut out = vec![full.clone(), minimal_value(schema)];
    out.extend(alternatives(schema, schema));
    if let (Some(Value::Object(properties)), Value::Object(base)) =
        (resolve(schema, schema).get("properties"), &full)
    {
        for (name, property) in properties {
            for value in alternatives(schema, property) {
                let mut sample = base.clone();
                sample.insert(name.clone(), value);
                out.push(Value::Object(sample));
            }
        }
    }
    out
}

/// One value per `enum` member and per `oneOf`/`anyOf` branch of `schema` (after its `$ref`).
fn alternatives(root: &Value, schema: &Value) -> Vec<Value> {
    let schema = resolve(root, schema);
    let mut out = Vec::new();
    if let Some(Value::Array(members)) = schema.get("enum") {
        out.extend(members.iter().take(MAX_ALTERNATIVES).cloned());
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            out.extend(
                branches
                    .iter()
                    .take(MAX_ALTERNATIVES)
                    .map(|branch| example_value_in(root, branch)),
            );
        }
    }
    out
}

/// `schema`, or what its local `$ref` points to.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
        .unwrap_or(schema)
}

/// A value as JSON text, cut to [`QUOTE_LIMIT`] characters.
fn quote(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(QUOTE_LIMIT) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    enum Unit {
        Celsius,
        Fahrenheit,
    }

    #[test]
    fn every_enum_member_is_tried() {
        let fits = json!({ "enum": ["Celsius", "Fahrenheit"] });
        assert_eq!(check_schema::<Unit>(&fits, &[]).unwrap().len(), 2);
        let extra = json!({ "enum": ["Celsius", "Fahrenheit", "Kelvin"] });
        let error = check_schema::<Unit>(&extra, &[]).unwrap_err();
        assert!(
            matches!(&error, SchemaOverrideError::Rejected { sample, .. } if sample == "\"Kelvin\""),
            "{error}"
        );
    }

    #[test]
    fn a_nullable_property_must_be_optional_in_the_type() {
        #[derive(Deserialize)]
        #[allow(dead_code)]
        struct Args {
            city: String,
        }
        let schema = json!({
            "type": "object",
            "properties": { "city": { "type": ["string", "null"] } }
        });
        let error = check_schema::<Args>(&schema, &[]).unwrap_err();
        assert!(error.to_string().contains("city"), "{error}");
    }

    #[test]
    fn a_sample_outside_the_schema_is_named() {
        let schema = json!({ "type": "integer", "minimum": 0 });
        let error = check_schema::<u32>(&schema, &[json!(3), json!(-1)]).unwrap_err();
        assert!(
            matches!(
                error,
                SchemaOverrideError::SampleOutsideSchema {
                    origin: SampleOrigin::Given(1),
                    ..
                }
            ),
            "{error}"
        );
    }

    #[test]
    fn an_invalid_schema_and_an_unsatisfiable_one_are_errors() {
        let invalid = json!({ "type": 12 });
        assert!(matches!(
            check_schema::<u32>(&invalid, &[]),
            Err(SchemaOverrideError::InvalidSchema(_))
        ));
        let nothing = json!({ "type": "integer", "minimum": 5, "maximum": 1 });
        assert!(matches!(
            check_schema::<u32>(&nothing, &[]),
            Err(SchemaOverrideError::NoSample)
        ));
    }

    #[test]
    fn long_samples_are_shortened() {
        let long = Value::String("x".repeat(1000));
        let quoted = quote(&long);
        assert_eq!(quoted.chars().count(), QUOTE_LIMIT + 1);
        assert!(quoted.ends_with('…'));
    }
}
