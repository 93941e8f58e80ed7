//! Placeholder replaced by the dialect implementation.

use serde_json::Value;

use super::SchemaError;

pub(super) fn lower(canonical: &Value) -> Result<Value, SchemaError> {
    Ok(canonical.clone())
}
