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
/// Keywords beside `$ref`, `allOf` and `anyOf`/`oneOf` are kept (an internally tagged
/// variant's tag, a flattened enum's shared fields), a map gets one entry, and a string with a
/// `pattern` is built from the regular expression (its shortest match, taking the first
/// alternative and the first character of each class).
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
/// let value = agentry::testing::example_value(&schema);
/// assert_eq!(value, json!({ "city": "a", "days": 1, "units": "celsius" }));
/// ```
pub fn example_value(schema: &Value) -> Value {
    Generator { root: schema }.value(schema, 0)
}

/// A value for `schema`, a part of `root` (whose `$ref`s point into `root`), every property
/// filled as in [`example_value`].
pub(crate) fn example_value_in(root: &Value, schema: &Value) -> Value {
    Generator { root }.value(schema, 0)
}

/// The smallest value [`example_value`] knows for `schema`: only the required properties,
/// the fewest items, null where null is allowed.
pub(crate) fn minimal_value(schema: &Value) -> Value {
    Generator { root: schema }.value(schema, MAX_DEPTH)
}

struct Generator<'a> {
    root: &'a Value,
}

impl Generator<'_> {
    fn resolve(&self, reference: &str) -> Option<&Value> {
        let pointer = reference.strip_prefix('#')?;
        self.root.pointer(pointer)
    }

    /// A value for `schema`: its own keywords (`type`, `properties`, ...) and every
    /// applicator beside them (`$ref`, `allOf`, `anyOf`/`oneOf`) each give a value, and the
    /// object values are merged — so an internally tagged variant (`$ref` plus sibling
    /// `properties` holding the tag) keeps both its fields and its tag.
    fn value(&self, schema: &Value, depth: usize) -> Value {
        let Some(obj) = schema.as_object() else {
            // `true` (anything) or `false` (nothing can satisfy it): null is the best guess.
            return Value::Null;
        };
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
        let mut parts = Vec::new();
        if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
            parts.push(match self.resolve(reference) {
                Some(target) => self.value(target, depth + 1),
                None => Value::Null,
            });
        }
        if let Some(Value::Array(all)) = obj.get("allOf") {
            parts.push(self.all_of(all, depth));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(options)) = obj.get(key) {
                parts.push(self.one_of(options, depth));
            }
        }
        let own = match obj.get("type") {
            Some(Value::String(ty)) => Some(self.typed(ty, obj, depth)),
            Some(Value::Array(types)) => Some(self.typed(pick_type(types, depth), obj, depth)),
            _ if obj.contains_key("properties") || obj.contains_key("additionalProperties") => {
                Some(self.typed("object", obj, depth))
            }
            _ if obj.contains_key("items") || obj.contains_key("prefixItems") => {
                Some(self.typed("array", obj, depth))
            }
            _ if obj.contains_key("pattern") || obj.contains_key("minLength") => {
                Some(self.typed("string", obj, depth))
            }
            _ => None,
        };
        let mut parts = parts.into_iter();
        let Some(mut value) = parts.next() else {
            return own.unwrap_or(Value::Null);
        };
        for part in parts {
            value = merge(value, part);
        }
        match own {
            // Object keywords beside an applicator (a tag, shared fields) join its value;
            // a lone `type` beside one says nothing more.
            Some(own @ Value::Object(_)) => merge(value, own),
            _ => value,
        }
    }

    fn one_of(&self, options: &[Value], depth: usize) -> Value {
        let is_null = |s: &Value| s.get("type").and_then(Value::as_str) == Some("null");
        let choice = if depth >= MAX_DEPTH {
            options.iter().find(|s| is_null(s)).or(options.first())
        } else {
            options.iter().find(|s| !is_null(s)).or(options.first())
        };
        choice.map_or(Value::Null, |s| self.value(s, depth + 1))
    }

    fn all_of(&self, parts: &[Value], depth: usize) -> Value {
        let mut values = parts.iter().map(|part| self.value(part, depth + 1));
        let first = values.next().unwrap_or(Value::Null);
        values.fold(first, merge)
    }

    fn typed(&self, ty: &str, obj: &Map<String, Value>, depth: usize) -> Value {
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

    fn array(&self, obj: &Map<String, Value>, depth: usize) -> Value {
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
            // A set (`uniqueItems`) of more than one item needs distinct values; one is
            // always valid.
            let wanted = if obj.get("uniqueItems") == Some(&Value::Bool(true)) {
                wanted.min(1)
            } else {
                wanted
            };
            while items.len() < wanted {
                items.push(self.value(item, depth + 1));
            }
        }
        Value::Array(items)
    }

    fn object(&self, obj: &Map<String, Value>, depth: usize) -> Value {
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
        // A map (`additionalProperties` with a schema and no fixed properties) gets one entry.
        if out.is_empty()
            && depth < MAX_DEPTH
            && let Some(values) = obj.get("additionalProperties").filter(|v| v.is_object())
        {
            let key = obj
                .get("propertyNames")
                .map(|names| self.value(names, depth + 1))
                .and_then(|k| k.as_str().map(str::to_string))
                .unwrap_or_else(|| "key".to_string());
            out.insert(key, self.value(values, depth + 1));
        }
        Value::Object(out)
    }
}

/// Two values for one schema: objects are merged (`b`'s members win), otherwise `a` stays
/// unless it is null.
fn merge(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut a), Value::Object(b)) => {
            a.extend(b);
            Value::Object(a)
        }
        (Value::Null, b) => b,
        (a, _) => a,
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
    if let Some(pattern) = obj.get("pattern").and_then(Value::as_str)
        && let Some(text) = matching(pattern)
    {
        return json!(text);
    }
    let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(1) as usize;
    let max = obj
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|m| m as usize);
    let len = max.map_or(min, |m| min.min(m));
    json!("a".repeat(len))
}

/// A string matching `pattern` (anywhere, as JSON Schema's `pattern` requires): the
/// shortest one, taking the first branch of each alternation and the first character of each
/// class ('a', '0' or 'A' when the class has them). `None` when the pattern does not parse.
fn matching(pattern: &str) -> Option<String> {
    let hir = regex_syntax::parse(pattern).ok()?;
    let mut out = String::new();
    write_match(&hir, &mut out);
    Some(out)
}

fn write_match(hir: &regex_syntax::hir::Hir, out: &mut String) {
    use regex_syntax::hir::{Class, HirKind};
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => out.push_str(&String::from_utf8_lossy(&lit.0)),
        HirKind::Class(Class::Unicode(class)) => {
            let ranges = class.ranges();
            let has = |c: char| ranges.iter().any(|r| r.start() <= c && c <= r.end());
            let pick = ['a', '0', 'A']
                .into_iter()
                .find(|c| has(*c))
                .or_else(|| ranges.first().map(|r| r.start()));
            out.extend(pick);
        }
        HirKind::Class(Class::Bytes(class)) => {
            if let Some(r) = class.ranges().first() {
                out.push(char::from(r.start()));
            }
        }
        HirKind::Repetition(rep) => {
            for _ in 0..rep.min {
                write_match(&rep.sub, out);
            }
        }
        HirKind::Capture(cap) => write_match(&cap.sub, out),
        HirKind::Concat(items) => items.iter().for_each(|h| write_match(h, out)),
        HirKind::Alternation(branches) => {
            if let Some(first) = branches.first() {
                write_match(first, out);
            }
        }
    }
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
    fn patterns_are_matched() {
        for pattern in [
            "^[A-Z]{3}-\\d{2,4}$",
            "^(eur|usd)$",
            "^\\w+@\\w+\\.com$",
            "x?y+",
        ] {
            let text = matching(pattern).unwrap();
            let re = regex::Regex::new(pattern).unwrap();
            assert!(re.is_match(&text), "{text:?} does not match {pattern}");
        }
    }

    #[test]
    fn ref_siblings_and_maps() {
        let schema = json!({
            "oneOf": [{
                "$ref": "#/$defs/Circle",
                "properties": { "kind": { "type": "string", "const": "circle" } },
                "required": ["kind"]
            }],
            "$defs": {
                "Circle": { "type": "object", "properties": { "r": { "type": "number" } },
                            "required": ["r"] },
                "Scores": { "type": "object", "additionalProperties": { "type": "integer" } }
            }
        });
        assert_eq!(
            example_value(&schema),
            json!({ "kind": "circle", "r": 1.5 })
        );
        let map = json!({ "$ref": "#/$defs/Scores", "$defs": schema["$defs"].clone() });
        assert_eq!(example_value(&map), json!({ "key": 1 }));
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
