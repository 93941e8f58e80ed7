//! Caps on the size of a schema, in every dialect: a schema from outside the program (a
//! dynamic tool, an MCP server) may be arbitrarily deep or large, and is refused before it is
//! walked, lowered or sent.
//!
//! | cap | value |
//! |---|---|
//! | nesting depth (objects and arrays) | [`MAX_DEPTH`] |
//! | JSON values in the schema | [`MAX_NODES`] |
//! | bytes of keys and strings | [`MAX_BYTES`] |
//!
//! The walk is iterative (no recursion, whatever the depth) and stops at the first cap
//! exceeded.

use serde_json::Value;

use super::{Dialect, SchemaError};

/// The deepest nesting of objects and arrays accepted.
pub const MAX_DEPTH: usize = 64;
/// The most JSON values (objects, arrays, strings, numbers...) accepted in one schema.
pub const MAX_NODES: usize = 50_000;
/// The most bytes of object keys and string values accepted in one schema.
pub const MAX_BYTES: usize = 1 << 20;

/// Fails when `schema` is deeper, has more nodes or more text than the caps allow.
pub(crate) fn check(schema: &Value, dialect: Dialect) -> Result<(), SchemaError> {
    let fail = |reason: String| Err(SchemaError::new(dialect, "", reason));
    let mut stack: Vec<(&Value, usize)> = vec![(schema, 1)];
    let (mut nodes, mut bytes) = (0usize, 0usize);
    while let Some((value, depth)) = stack.pop() {
        nodes += 1;
        if nodes > MAX_NODES {
            return fail(format!(
                "the schema has more than {MAX_NODES} nodes (the cap on schema node count); a tool schema this large is not usable by a model"
            ));
        }
        if depth > MAX_DEPTH {
            return fail(format!(
                "the schema is nested deeper than {MAX_DEPTH} levels (the cap on schema depth)"
            ));
        }
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    bytes += key.len();
                    stack.push((child, depth + 1));
                }
            }
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            Value::String(s) => bytes += s.len(),
            _ => {}
        }
        if bytes > MAX_BYTES {
            return fail(format!(
                "the schema holds more than {MAX_BYTES} bytes of keys and strings (the cap on schema size)"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_small_schema_passes() {
        let s = json!({ "type": "object", "properties": { "a": { "type": "string" } } });
        assert!(check(&s, Dialect::OpenAi).is_ok());
    }
}
