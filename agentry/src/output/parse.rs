//! From JSON text to a validated output value, every failure typed and located.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::AnswerError;
use super::structured::StructuredOutput;
use super::validate::Validation;

/// The key a non-object output is wrapped under where a provider needs an object root.
pub const WRAPPER_KEY: &str = "value";

/// Parses and validates `json` as a `T`.
///
/// `wrapped` says that `T`'s schema is not an object, so the model may have been asked for
/// `{"value": ...}` (native and tool strategies) or for the bare value (prompted strategy):
/// both are accepted.
///
/// ```
/// use agentry::output::{AnswerError, parse_output};
///
/// let v: Vec<u32> = parse_output(r#"{"value": [1, 2]}"#, true).unwrap();
/// assert_eq!(v, [1, 2]);
/// let err = parse_output::<Vec<u32>>(r#"[1, "two"]"#, true).unwrap_err();
/// assert!(matches!(err, AnswerError::Schema { ref path, .. } if path == "$[1]"));
/// ```
pub fn parse_output<T: StructuredOutput>(json: &str, wrapped: bool) -> Result<T, AnswerError> {
    let (value, root) = if wrapped {
        let value: Value = serde_json::from_str(json).map_err(syntax_or_schema("$"))?;
        match value {
            Value::Object(mut map) if map.len() == 1 && map.contains_key(WRAPPER_KEY) => {
                let inner = map.remove(WRAPPER_KEY).unwrap_or(Value::Null);
                (from_value::<T>(inner, "$.value")?, "$.value")
            }
            other => (from_value::<T>(other, "$")?, "$"),
        }
    } else {
        // Plain serde first; the path-tracking parse runs only to explain a failure.
        match serde_json::from_str::<T>(json) {
            Ok(value) => (value, "$"),
            Err(_) => {
                let mut de = serde_json::Deserializer::from_str(json);
                let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
                    let path = json_path("$", &e.path().to_string());
                    syntax_or_schema(&path)(e.into_inner())
                })?;
                de.end().map_err(syntax_or_schema("$"))?;
                (value, "$")
            }
        }
    };
    let mut v = Validation::at(root);
    value.validate_into(&mut v);
    v.finish()?;
    Ok(value)
}

fn from_value<T: DeserializeOwned>(value: Value, root: &str) -> Result<T, AnswerError> {
    serde_path_to_error::deserialize(value).map_err(|e| AnswerError::Schema {
        path: json_path(root, &e.path().to_string()),
        message: strip_position(&e.into_inner().to_string()).to_string(),
    })
}

fn syntax_or_schema(path: &str) -> impl FnOnce(serde_json::Error) -> AnswerError + '_ {
    move |e| {
        let message = strip_position(&e.to_string()).to_string();
        if e.is_data() {
            AnswerError::Schema {
                path: path.to_string(),
                message,
            }
        } else {
            AnswerError::Syntax {
                line: e.line(),
                column: e.column(),
                message,
            }
        }
    }
}

/// `serde_path_to_error`'s path (`days[0].city`, `.` for the root) as a JSON path under `root`.
fn json_path(root: &str, path: &str) -> String {
    match path {
        "." | "" => root.to_string(),
        p if p.starts_with('[') => format!("{root}{p}"),
        p => format!("{root}.{p}"),
    }
}

/// serde_json appends " at line L column C"; the line and column are reported separately.
fn strip_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) => &message[..i],
        None => message,
    }
}
