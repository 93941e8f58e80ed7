//! The dialects that take JSON Schema almost as it is (OpenAI without `strict`, Anthropic's
//! `input_schema`): one copying walk that checks references, drops `$schema` and writes boolean
//! subschemas in object form, plus each provider's rule for the root.

use serde_json::{Map, Value, json};

use super::keywords::{BOOLEAN_FRIENDLY, SUBSCHEMA, SUBSCHEMA_ARRAYS, SUBSCHEMA_MAPS};
use super::walk::Cx;
use super::{Dialect, SchemaError};

/// Copies `canonical` for `dialect` after checking that its root is an object schema without
/// a top-level combinator (both OpenAI and Anthropic reject `anyOf`/`oneOf`/`allOf` there).
pub(super) fn lower(canonical: &Value, dialect: Dialect) -> Result<Value, SchemaError> {
    lower_checked(canonical, dialect).inspect_err(super::walk::log_refusal)
}

fn lower_checked(canonical: &Value, dialect: Dialect) -> Result<Value, SchemaError> {
    let mut cx = Cx::new(dialect, canonical);
    let provider = match dialect {
        Dialect::Anthropic => "Anthropic",
        _ => "OpenAI",
    };
    let is_object = canonical.get("type").is_some_and(|t| t == "object");
    if !is_object {
        return Err(cx.error(
            "the root schema must be an object (`type: \"object\"`); wrap the type in a struct with one field",
        ));
    }
    if let Some(keyword) = ["anyOf", "oneOf", "allOf", "enum", "not"]
        .into_iter()
        .find(|k| canonical.get(k).is_some())
    {
        return Err(cx.error_at(
            keyword,
            format!(
                "{provider} does not accept `{keyword}` at the root of a tool's parameters; move the enum into a field of a struct"
            ),
        ));
    }
    copy_schema(&mut cx, canonical)
}

fn copy_schema<'a>(cx: &mut Cx<'a>, node: &'a Value) -> Result<Value, SchemaError> {
    match node {
        // Some validators only take object schemas where a subschema is expected.
        Value::Bool(true) => Ok(json!({})),
        Value::Bool(false) => Ok(json!({ "not": {} })),
        Value::Object(map) => copy_map(cx, map).map(Value::Object),
        _ => Err(cx.error("not a JSON schema: expected an object or a boolean")),
    }
}

fn copy_map<'a>(
    cx: &mut Cx<'a>,
    map: &'a Map<String, Value>,
) -> Result<Map<String, Value>, SchemaError> {
    let mut out = Map::new();
    for (key, value) in map {
        let key_str = key.as_str();
        let copied = if key_str == "$schema" {
            continue;
        } else if key_str == "$ref" {
            cx.resolve(value)?;
            value.clone()
        } else if BOOLEAN_FRIENDLY.contains(&key_str) && value.is_boolean() {
            value.clone()
        } else if key_str == "items" && value.is_array() {
            // Draft 2019 tuple form.
            copy_array(cx, key_str, value)?
        } else if SUBSCHEMA.contains(&key_str) {
            let mark = cx.enter(key_str)?;
            let copied = copy_schema(cx, value)?;
            cx.leave(mark);
            copied
        } else if SUBSCHEMA_ARRAYS.contains(&key_str) {
            copy_array(cx, key_str, value)?
        } else if SUBSCHEMA_MAPS.contains(&key_str) {
            let Value::Object(entries) = value else {
                return Err(cx.error_at(key_str, format!("`{key_str}` must map names to schemas")));
            };
            let outer = cx.enter(key_str)?;
            let mut copied = Map::new();
            for (name, schema) in entries {
                let mark = cx.enter(name)?;
                copied.insert(name.clone(), copy_schema(cx, schema)?);
                cx.leave(mark);
            }
            cx.leave(outer);
            Value::Object(copied)
        } else {
            // Values (`enum`, `const`, `default`...) and annotations are data, not schemas.
            value.clone()
        };
        out.insert(key.clone(), copied);
    }
    Ok(out)
}

fn copy_array<'a>(cx: &mut Cx<'a>, key: &str, value: &'a Value) -> Result<Value, SchemaError> {
    let Value::Array(items) = value else {
        return Err(cx.error_at(key, format!("`{key}` must be an array of schemas")));
    };
    let outer = cx.enter(key)?;
    let mut copied = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let mark = cx.enter_index(i)?;
        copied.push(copy_schema(cx, item)?);
        cx.leave(mark);
    }
    cx.leave(outer);
    Ok(Value::Array(copied))
}
