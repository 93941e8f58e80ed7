//! Valid example values generated from a JSON schema, for [`TestModel`](super::TestModel).

use serde_json::{Map, Value, json};

/// Deeper than this, a recursive schema takes its smallest option (null, an empty array or an
/// object with only required fields).
const MAX_DEPTH: usize = 6;

/// A value that satisfies `schema` — the canonical schema of a tool's arguments or of an
/// output type — for the keywords the SDK's dialects support: `$ref`/`$defs`, `type` (also
/// as an array), `enum`, `const`, `anyOf`/`oneOf`/`allOf`, object `properties` and
/// `required`, `additionalProperties`, `items` and `prefixItems` with `minItems`/`maxItems`,
/// numeric bounds and `multipleOf`, string `minLength`/`maxLength` and common `format`s.
/// Every property is filled, optional ones included, so tools see complete arguments.
///
/// A `pattern` is not solved: strings are plain, so a schema with a pattern may get a value
/// that does not match it.
///
/// ```
/// use serde_json::json;
/// let schema = json!({
///     "type": "object",
///     "properties": {
///         "city": { "type": "string" },
///         "days": { "type": "integer", "minimum": 1, "maximum": 5 },
///         "units": { "enum": ["celsius", "fahrenheit"] }
///     },
///     "required": ["city"]
/// });
/// let value = agent_sdk::testing::example_value(&schema);
/// assert_eq!(value, json!({ "city": "a", "days": 1, "units": "celsius" }));
/// ```
pub fn example_value(schema: &Value) -> Value {
    Generator { root: schema }.value(schema, 0)
}

struct Generator<'a> {
    root: &'a Value,
}

impl<'a> Generator<'a> {
    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        self.root.pointer(pointer)
    }

    fn value(&self, schema: &'a Value, depth: usize) -> Value {
        let Some(obj) = schema.as_object() else {
            // `true` (anything) or `false` (nothing can satisfy it): null is the best guess.
            return Value::Null;
        };
        if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
            return match self.resolve(reference) {
                Some(target) => self.value(target, depth + 1),
                None => Value::Null,
            };
        }
        if let Some(value) = obj.get("const") {
            return value.clone();
        }
        if let Some(first) = obj
            .get("enum")
            .and_then(Value::as_array)
            .and_then(|e| e.first())
        {
            return first.clone();
        }
        if let Some(Value::Array(all)) = obj.get("allOf") {
            return self.all_of(all, depth);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(options)) = obj.get(key) {
                return self.one_of(options, depth);
            }
        }
        match obj.get("type") {
            Some(Value::String(ty)) => self.typed(ty, obj, depth),
            Some(Value::Array(types)) => {
                let ty = pick_type(types, depth);
                self.typed(ty, obj, depth)
            }
            _ if obj.contains_key("properties") => self.typed("object", obj, depth),
            _ if obj.contains_key("items") => self.typed("array", obj, depth),
            _ => Value::Null,
        }
    }

    fn one_of(&self, options: &'a [Value], depth: usize) -> Value {
        let is_null = |s: &Value| s.get("type").and_then(Value::as_str) == Some("null");
        let choice = if depth >= MAX_DEPTH {
            options.iter().find(|s| is_null(s)).or(options.first())
        } else {
            options.iter().find(|s| !is_null(s)).or(options.first())
        };
        choice.map_or(Value::Null, |s| self.value(s, depth + 1))
    }

    fn all_of(&self, parts: &'a [Value], depth: usize) -> Value {
        let mut merged = Map::new();
        for part in parts {
            match self.value(part, depth + 1) {
                Value::Object(map) => merged.extend(map),
                other if parts.len() == 1 => return other,
                _ => {}
            }
        }
        Value::Object(merged)
    }

    fn typed(&self, ty: &str, obj: &'a Map<String, Value>, depth: usize) -> Value {
        match ty {
            "null" => Value::Null,
            "boolean" => Value::Bool(true),
            "integer" => integer(obj),
            "number" => number(obj),
            "string" => string(obj),
            "array" => self.array(obj, depth),
            "object" => self.object(obj, depth),
            _ => Value::Null,
        }
    }

    fn array(&self, obj: &'a Map<String, Value>, depth: usize) -> Value {
        let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let max = obj
            .get("maxItems")
            .and_then(Value::as_u64)
            .map(|m| m as usize);
        let mut items = Vec::new();
        if let Some(Value::Array(prefix)) = obj.get("prefixItems") {
            items.extend(prefix.iter().map(|s| self.value(s, depth + 1)));
        }
        let wanted = if depth >= MAX_DEPTH { min } else { min.max(1) };
        let wanted = max.map_or(wanted, |m| wanted.min(m));
        if let Some(item) = obj.get("items").filter(|i| i.is_object()) {
            while items.len() < wanted {
                items.push(self.value(item, depth + 1));
            }
        }
        Value::Array(items)
    }

    fn object(&self, obj: &'a Map<String, Value>, depth: usize) -> Value {
        let required: Vec<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Map::new();
        if let Some(Value::Object(props)) = obj.get("properties") {
            for (name, schema) in props {
                if depth >= MAX_DEPTH && !required.contains(&name.as_str()) {
                    continue;
                }
                out.insert(name.clone(), self.value(schema, depth + 1));
            }
        }
        Value::Object(out)
    }
}

fn pick_type(types: &[Value], depth: usize) -> &str {
    let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
    if depth >= MAX_DEPTH && names.contains(&"null") {
        return "null";
    }
    names
        .iter()
        .copied()
        .find(|t| *t != "null")
        .or(names.first().copied())
        .unwrap_or("null")
}

fn integer(obj: &Map<String, Value>) -> Value {
    let mut low = obj.get("minimum").and_then(Value::as_f64).map(f64::ceil);
    if let Some(x) = obj.get("exclusiveMinimum").and_then(Value::as_f64) {
        low = Some(low.map_or(x.floor() + 1.0, |l| l.max(x.floor() + 1.0)));
    }
    let mut high = obj.get("maximum").and_then(Value::as_f64).map(f64::floor);
    if let Some(x) = obj.get("exclusiveMaximum").and_then(Value::as_f64) {
        high = Some(high.map_or(x.ceil() - 1.0, |h| h.min(x.ceil() - 1.0)));
    }
    let mut value = match (low, high) {
        (Some(l), _) => l,
        (None, Some(h)) => h.min(1.0),
        (None, None) => 1.0,
    };
    if let Some(step) = obj
        .get("multipleOf")
        .and_then(Value::as_f64)
        .filter(|s| *s > 0.0)
    {
        value = (value / step).ceil() * step;
    }
    json!(value as i64)
}

fn number(obj: &Map<String, Value>) -> Value {
    let low = obj.get("minimum").and_then(Value::as_f64);
    let exclusive_low = obj.get("exclusiveMinimum").and_then(Value::as_f64);
    let high = obj
        .get("maximum")
        .or_else(|| obj.get("exclusiveMaximum"))
        .and_then(Value::as_f64);
    let value = match (low, exclusive_low, high) {
        (Some(l), _, _) => l,
        (None, Some(x), Some(h)) => (x + h) / 2.0,
        (None, Some(x), None) => x + 1.0,
        (None, None, Some(h)) => h.min(1.5),
        (None, None, None) => 1.5,
    };
    json!(value)
}

fn string(obj: &Map<String, Value>) -> Value {
    let by_format = match obj.get("format").and_then(Value::as_str) {
        Some("date-time") => Some("2025-01-01T12:00:00Z"),
        Some("date") => Some("2025-01-01"),
        Some("time") => Some("12:00:00"),
        Some("email") => Some("someone@example.com"),
        Some("uri") | Some("url") => Some("https://example.com/"),
        Some("uuid") => Some("00000000-0000-4000-8000-000000000000"),
        Some("ipv4") => Some("192.0.2.1"),
        Some("ipv6") => Some("2001:db8::1"),
        _ => None,
    };
    if let Some(s) = by_format {
        return json!(s);
    }
    let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(1) as usize;
    let max = obj
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|m| m as usize);
    let len = max.map_or(min, |m| min.min(m));
    json!("a".repeat(len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_recursion_and_nullable() {
        let schema = json!({
            "type": "object",
            "properties": {
                "root": { "$ref": "#/$defs/Node" },
                "note": { "type": ["string", "null"] },
                "when": { "type": "string", "format": "date" },
                "tags": { "type": "array", "items": { "type": "string" }, "minItems": 2 }
            },
            "required": ["root"],
            "$defs": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "children": { "type": "array", "items": { "$ref": "#/$defs/Node" } }
                    },
                    "required": ["children"]
                }
            }
        });
        let value = example_value(&schema);
        assert_eq!(value["note"], "a");
        assert_eq!(value["when"], "2025-01-01");
        assert_eq!(value["tags"], json!(["a", "a"]));
        // Recursion bottoms out in an empty list.
        let mut node = &value["root"];
        let mut depth = 0;
        while let Some(child) = node["children"].get(0) {
            node = child;
            depth += 1;
        }
        assert!(depth > 0 && depth < 10, "depth {depth}");
    }

    #[test]
    fn numeric_bounds() {
        assert_eq!(
            integer(json!({"exclusiveMinimum": 3}).as_object().unwrap()),
            json!(4)
        );
        assert_eq!(
            integer(json!({"maximum": -2}).as_object().unwrap()),
            json!(-2)
        );
        assert_eq!(
            integer(json!({"minimum": 1, "multipleOf": 5}).as_object().unwrap()),
            json!(5)
        );
        assert_eq!(
            number(
                json!({"exclusiveMinimum": 0, "maximum": 1})
                    .as_object()
                    .unwrap()
            ),
            json!(0.5)
        );
    }
}
