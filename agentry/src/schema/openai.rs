//! OpenAI function calling without `strict`.
//!
//! OpenAI validates non-strict `parameters` loosely: the root must be `type: "object"` (no
//! `anyOf`/`oneOf`/`allOf` at the top), and the rest of draft 2020-12 is accepted, including
//! `$defs` and `$ref`. The schema is sent as it is, minus `$schema`.

use serde_json::Value;

use super::{Dialect, SchemaError, passthrough};

pub(super) fn lower(canonical: &Value) -> Result<Value, SchemaError> {
    passthrough::lower(canonical, Dialect::OpenAi)
}
