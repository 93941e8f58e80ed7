//! Anthropic's `input_schema`.
//!
//! Anthropic accepts JSON Schema draft 2020-12 for tool inputs, including `$defs` and `$ref`,
//! but the root must be `type: "object"`, and it rejects `oneOf`, `allOf` or `anyOf` at the
//! top level ("input_schema does not support oneOf, allOf, or anyOf at the top level"). The
//! schema is sent as it is, minus `$schema`.
//!
//! Anthropic's *strict* tool use accepts a much smaller subset; it is not this dialect.

use serde_json::Value;

use super::{Dialect, SchemaError, passthrough};

pub(super) fn lower(canonical: &Value) -> Result<Value, SchemaError> {
    passthrough::lower(canonical, Dialect::Anthropic)
}
