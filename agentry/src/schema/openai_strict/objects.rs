//! Closing objects for OpenAI strict mode: every property listed in `required`, optional ones
//! made nullable, no extra keys (a map with arbitrary keys is refused).

use serde_json::{Map, Value, json};

use super::super::SchemaError;
use super::super::walk::{View, resolve, type_names};
use super::Strict;

const MAP: &str = "OpenAI strict mode cannot express a map with arbitrary keys; use a Vec of key/value structs, or set `strict = false`";

impl<'a> Strict<'a> {
    /// Closes an object: every property required, optional ones nullable, no extra keys.
    pub(super) fn object(
        &mut self,
        node: View<'a>,
        out: &mut Map<String, Value>,
    ) -> Result<(), SchemaError> {
        match node.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => return Err(self.cx.error_at("additionalProperties", MAP)),
        }
        match node.get("unevaluatedProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => return Err(self.cx.error_at("unevaluatedProperties", MAP)),
        }
        let required: Vec<&str> = match node.get("required") {
            None => Vec::new(),
            Some(Value::Array(names)) => names
                .iter()
                .map(Value::as_str)
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    self.cx
                        .error_at("required", "`required` must be an array of property names")
                })?,
            Some(_) => {
                return Err(self
                    .cx
                    .error_at("required", "`required` must be an array of property names"));
            }
        };
        let properties: Option<&'a Map<String, Value>> = match node.get("properties") {
            None => None,
            Some(Value::Object(properties)) => Some(properties),
            Some(_) => {
                return Err(self
                    .cx
                    .error_at("properties", "`properties` must map names to schemas"));
            }
        };
        let declared = |name: &str| properties.is_some_and(|p| p.contains_key(name));
        if let Some(missing) = required.iter().find(|name| !declared(name)) {
            return Err(self.cx.error_at(
                "required",
                format!("`{missing}` is required but has no schema under `properties`; declare it"),
            ));
        }
        self.depth += 1;
        self.limits.object(&self.scope, self.depth, &self.cx);
        let mut lowered = Map::new();
        let outer = self.cx.enter("properties")?;
        for (name, schema) in properties.into_iter().flatten() {
            let mark = self.cx.enter(name)?;
            self.limits.property(&self.cx, name)?;
            let mut property = self.schema(schema)?;
            if !required.contains(&name.as_str()) && !self.accepts_null(&property, 0) {
                property = nullable(property);
            }
            self.cx.leave(mark);
            lowered.insert(name.clone(), property);
        }
        self.cx.leave(outer);
        self.depth -= 1;
        let names = lowered.keys().cloned().map(Value::String).collect();
        out.insert(
            "type".to_string(),
            out.get("type").cloned().unwrap_or_else(|| json!("object")),
        );
        out.insert("properties".to_string(), Value::Object(lowered));
        out.insert("required".to_string(), Value::Array(names));
        out.insert("additionalProperties".to_string(), Value::Bool(false));
        Ok(())
    }

    /// Whether a lowered schema already accepts `null` (references are looked up in the
    /// canonical schema, whose definitions accept `null` exactly when their lowered forms do).
    fn accepts_null(&self, schema: &Value, hops: usize) -> bool {
        let Value::Object(map) = schema else {
            return *schema == Value::Bool(true);
        };
        if hops > 16 {
            return false;
        }
        if let Some(Value::String(reference)) = map.get("$ref") {
            return resolve(self.cx.root, reference)
                .is_some_and(|target| self.accepts_null(target, hops + 1));
        }
        let by_type = map
            .get("type")
            .and_then(type_names)
            .is_none_or(|names| names.contains(&"null"));
        let by_enum = match map.get("enum") {
            Some(Value::Array(values)) => values.contains(&Value::Null),
            _ => true,
        };
        let by_const = map.get("const").is_none_or(Value::is_null);
        let by_union = ["anyOf", "oneOf"].iter().all(|k| match map.get(*k) {
            Some(Value::Array(alternatives)) => {
                alternatives.iter().any(|a| self.accepts_null(a, hops + 1))
            }
            _ => true,
        });
        by_type && by_enum && by_const && by_union
    }
}

/// Makes a lowered schema also accept `null`: a type array for a plain type, one more
/// alternative for a union, an `anyOf` wrapper otherwise.
fn nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    let plain = !map.contains_key("const") && !map.contains_key("anyOf");
    match map.get_mut("type") {
        Some(Value::String(name)) if plain => {
            let name = std::mem::take(name);
            map.insert("type".to_string(), json!([name, "null"]));
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                values.push(Value::Null);
            }
            return Value::Object(map);
        }
        Some(Value::Array(names)) if plain => {
            names.push(json!("null"));
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                values.push(Value::Null);
            }
            return Value::Object(map);
        }
        _ => {}
    }
    if map.keys().all(|k| k == "anyOf" || k == "description")
        && let Some(Value::Array(alternatives)) = map.get_mut("anyOf")
    {
        alternatives.push(json!({ "type": "null" }));
        return Value::Object(map);
    }
    let description = map.remove("description");
    let mut wrapper = Map::new();
    if let Some(description) = description {
        wrapper.insert("description".to_string(), description);
    }
    wrapper.insert(
        "anyOf".to_string(),
        json!([Value::Object(map), { "type": "null" }]),
    );
    Value::Object(wrapper)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::nullable;

    #[test]
    fn plain_types_become_type_arrays() {
        assert_eq!(
            nullable(json!({ "type": "string" })),
            json!({ "type": ["string", "null"] })
        );
        assert_eq!(
            nullable(json!({ "type": "string", "enum": ["a"] })),
            json!({ "type": ["string", "null"], "enum": ["a", null] })
        );
    }

    #[test]
    fn unions_gain_a_null_alternative() {
        assert_eq!(
            nullable(json!({ "description": "d", "anyOf": [{ "$ref": "#/$defs/A" }] })),
            json!({ "description": "d", "anyOf": [{ "$ref": "#/$defs/A" }, { "type": "null" }] })
        );
    }

    #[test]
    fn references_and_consts_are_wrapped() {
        assert_eq!(
            nullable(json!({ "$ref": "#/$defs/A" })),
            json!({ "anyOf": [{ "$ref": "#/$defs/A" }, { "type": "null" }] })
        );
        assert_eq!(
            nullable(json!({ "type": "string", "const": "x", "description": "d" })),
            json!({ "description": "d", "anyOf": [{ "type": "string", "const": "x" }, { "type": "null" }] })
        );
    }
}
