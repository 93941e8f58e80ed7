//! Validating a dynamic tool's arguments against its JSON schema before the call.
//!
//! A static tool's arguments are checked by serde into its typed `Args`; a
//! [`DynTool`](super::DynTool) receives JSON, so its definition's schema is compiled once
//! (with the SDK's validator, `schema::validator`) when the agent is built, and every call is
//! checked against it.
//! A violation goes back to the model as [`ToolCallError::InvalidArguments`] naming the JSON
//! path, exactly like a static tool's.

use std::fmt;

use serde_json::Value;

use crate::schema::validator::Validator;
use crate::tool::{ToolCallError, ToolDefinition};

/// A dynamic tool's compiled argument schema.
pub(crate) struct ArgsSchema {
    validator: Option<Validator>,
}

impl fmt::Debug for ArgsSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArgsSchema")
            .field("compiled", &self.validator.is_some())
            .finish()
    }
}

impl ArgsSchema {
    /// Compiles `def`'s parameter schema. A schema that does not compile is logged and not
    /// enforced (the tool still receives the model's JSON). One over the size caps
    /// ([`schema::size`](crate::schema::size)) is not compiled at all: the validator walks a
    /// schema recursively and holds it whole, so a foreign schema nested thousands of levels
    /// deep would overflow the stack and a huge one take unbounded memory. Such a tool is
    /// refused with a typed [`SchemaError`](crate::SchemaError) when a request offering it
    /// is lowered, before anything is sent.
    pub(crate) fn compile(def: &ToolDefinition) -> Self {
        if let Err(error) = crate::schema::size::check(&def.parameters, crate::Dialect::OpenAi) {
            tracing::warn!(tool = %def.name, %error, "the dynamic tool's parameter schema is over the size caps; it is not compiled");
            return ArgsSchema { validator: None };
        }
        match Validator::new(&def.parameters) {
            Ok(validator) => ArgsSchema {
                validator: Some(validator),
            },
            Err(error) => {
                tracing::warn!(tool = %def.name, %error, "the dynamic tool's parameter schema does not compile; its arguments are not validated");
                ArgsSchema { validator: None }
            }
        }
    }

    /// Checks `args`; the first violation names its JSON path (`items[2].name`, `.` for the
    /// root), and how many more there are.
    pub(crate) fn check(&self, tool: &str, args: &Value) -> Result<(), ToolCallError> {
        let Some(validator) = &self.validator else {
            return Ok(());
        };
        if validator.is_valid(args) {
            return Ok(());
        }
        let mut violations = validator.violations(args).into_iter();
        let Some(first) = violations.next() else {
            return Ok(());
        };
        let more = violations.count();
        let mut message = first.message;
        if more > 0 {
            message.push_str(&format!(" (and {more} more problem{})", plural(more)));
        }
        Err(ToolCallError::InvalidArguments {
            tool: tool.to_string(),
            path: dotted_path(&first.instance_path),
            message,
        })
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A JSON pointer (`/stops/2/name`) in the path style of static tools (`stops[2].name`).
fn dotted_path(pointer: &str) -> String {
    if pointer.is_empty() || pointer == "/" {
        return ".".to_string();
    }
    let mut out = String::new();
    for segment in pointer.trim_start_matches('/').split('/') {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            out.push('[');
            out.push_str(&segment);
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&segment);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn echo() -> ToolDefinition {
        ToolDefinition::new(
            "echo",
            "Repeat.",
            json!({
                "type": "object",
                "properties": {
                    "text": { "type": "string" },
                    "stops": { "type": "array", "items": {
                        "type": "object", "properties": { "name": { "type": "string" } }
                    } }
                },
                "required": ["text"],
                "additionalProperties": false
            }),
            false,
        )
    }

    #[test]
    fn paths_are_written_like_static_tools() {
        assert_eq!(dotted_path(""), ".");
        assert_eq!(dotted_path("/text"), "text");
        assert_eq!(dotted_path("/stops/2/name"), "stops[2].name");
        assert_eq!(dotted_path("/a~1b"), "a/b");
    }

    #[test]
    fn a_wrong_type_names_its_path() {
        let schema = ArgsSchema::compile(&echo());
        let err = schema
            .check("echo", &json!({ "text": "a", "stops": [{ "name": 3 }] }))
            .unwrap_err();
        let ToolCallError::InvalidArguments { path, message, .. } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(path, "stops[0].name");
        assert!(message.contains("string"), "{message}");
        assert!(schema.check("echo", &json!({ "text": "ok" })).is_ok());
    }
}
