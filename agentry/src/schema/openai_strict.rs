//! OpenAI strict mode (structured outputs and `strict: true` function calling).
//!
//! OpenAI constrains decoding to the schema, so it accepts only a subset of JSON Schema
//! (see the "Supported schemas" section of its structured-outputs guide):
//!
//! * every object is closed (`additionalProperties: false`) and lists every property in
//!   `required`; a property that was optional becomes nullable instead, and the SDK's strict
//!   argument parsing turns `null` back into "absent" so serde defaults still apply;
//! * `anyOf` is the only combinator: `oneOf` becomes `anyOf` when its alternatives provably
//!   never overlap, `allOf` and `$ref` with sibling constraints are merged into one schema;
//! * `$ref` has no siblings: a description next to a reference moves onto an `anyOf` wrapper
//!   with the reference as its single alternative;
//! * strings support `pattern` and the formats `date-time`, `time`, `date`, `duration`,
//!   `email`, `hostname`, `ipv4`, `ipv6`, `uuid` (other formats are annotations and are
//!   dropped); numbers support `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
//!   `multipleOf`; arrays `items`, `minItems`, `maxItems`;
//! * `$defs` and recursion (`#`, `#/$defs/...`) are supported; the size limits are checked by
//!   [`super::limits`].
//!
//! What cannot be expressed is refused: maps with arbitrary keys, `serde_json::Value`,
//! `minLength`/`maxLength`, `uniqueItems` (sets), tuples, and the like. The root must be an
//! object; wrapping other types is the structured-output layer's job.

use serde_json::{Map, Value, json};

use super::keywords::{ANNOTATIONS, CONSTRAINTS, SCOPE_CHANGING, unsupported};
use super::limits::Limits;
use super::merge;
use super::walk::{Cx, UnionWords, View, bad_type, resolve, type_names};
use super::{Dialect, SchemaError};

/// How union errors are worded in OpenAI strict mode.
const UNION_WORDS: UnionWords = UnionWords {
    combined: "in OpenAI strict mode",
    dialect: "OpenAI strict mode",
    fix: "give the enum a serde tag, or set `strict = false`",
};

const LABEL: &str = "OpenAI strict mode";
const ESCAPE: &str = ", or set `strict = false`";
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
const ANY_VALUE: &str = "this schema accepts any JSON value (e.g. `serde_json::Value`), which OpenAI strict mode cannot express; use a concrete type, or set `strict = false`";
const ROOT: &str = "the root schema must be a plain object (`type: \"object\"`); wrap the type in a struct with one field";
const MAP: &str = "OpenAI strict mode cannot express a map with arbitrary keys; use a Vec of key/value structs, or set `strict = false`";

pub(super) fn lower(canonical: &Value) -> Result<Value, SchemaError> {
    lower_strict(canonical).inspect_err(super::walk::log_refusal)
}

fn lower_strict(canonical: &Value) -> Result<Value, SchemaError> {
    let mut strict = Strict {
        cx: Cx::new(Dialect::OpenAiStrict, canonical),
        limits: Limits::default(),
        inlining: Vec::new(),
        scope: "#".to_string(),
        depth: 0,
    };
    strict.check_root()?;
    let lowered = strict.schema(canonical)?;
    // Merging `allOf` parts could still distribute a union over the root.
    if lowered.get("type").is_none_or(|t| t != "object") {
        return Err(strict.cx.error(ROOT));
    }
    strict.limits.check_depth(&strict.cx)?;
    Ok(lowered)
}

struct Strict<'a> {
    cx: Cx<'a>,
    limits: Limits,
    /// References whose targets are being merged into the current node (cycle guard).
    inlining: Vec<&'a str>,
    /// `#` or the reference of the definition being lowered (for nesting depth).
    scope: String,
    /// How many objects enclose the current node within `scope`.
    depth: usize,
}

impl<'a> Strict<'a> {
    fn check_root(&self) -> Result<(), SchemaError> {
        let root = self.cx.root;
        let is_object = root.get("type").is_some_and(|t| t == "object");
        let combined = ["anyOf", "oneOf", "$ref", "enum", "const"]
            .iter()
            .any(|k| root.get(k).is_some());
        if is_object && !combined {
            Ok(())
        } else {
            Err(self.cx.error(ROOT))
        }
    }

    /// Lowers a whole schema (a property, an item, an alternative, a definition).
    fn schema(&mut self, node: &'a Value) -> Result<Value, SchemaError> {
        let lowered = self.map(self.cx.view(node, ANY_VALUE)?)?;
        let constrained = ["type", "anyOf", "$ref", "enum", "const"]
            .iter()
            .any(|k| lowered.get(k).is_some());
        if constrained {
            Ok(lowered)
        } else {
            Err(self.cx.error(ANY_VALUE))
        }
    }

    /// Lowers a schema object, or part of one (for merging).
    fn map(&mut self, node: View<'a>) -> Result<Value, SchemaError> {
        if let Some(reference) = node.get("$ref") {
            return self.reference(node, reference);
        }
        if let Some(parts) = node.get("allOf") {
            return self.all_of(node, parts);
        }
        let is_root = self
            .cx
            .root
            .as_object()
            .is_some_and(|root| std::ptr::eq(root, node.map));
        let mut out = Map::new();
        let mut object = false;
        let mut typed = false;
        for (key, value) in node.iter() {
            match key.as_str() {
                "type" => {
                    let names = type_names(value).ok_or_else(|| bad_type(&self.cx))?;
                    object |= names.contains(&"object");
                    typed = true;
                    out.insert(key.clone(), value.clone());
                }
                "properties" | "required" | "additionalProperties" | "unevaluatedProperties" => {}
                "anyOf" | "oneOf" => {}
                "description" => {
                    out.insert(key.clone(), value.clone());
                }
                "enum" => {
                    let Value::Array(values) = value else {
                        return Err(self.cx.error_at(key, "`enum` must be an array of values"));
                    };
                    self.limits.values(&self.cx, key, values)?;
                    out.insert(key.clone(), value.clone());
                }
                "const" => {
                    self.limits
                        .values(&self.cx, key, std::slice::from_ref(value))?;
                    out.insert(key.clone(), value.clone());
                }
                "pattern" | "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum"
                | "multipleOf" | "minItems" | "maxItems" => {
                    out.insert(key.clone(), value.clone());
                }
                "format" => {
                    if value.as_str().is_some_and(|f| FORMATS.contains(&f)) {
                        out.insert(key.clone(), value.clone());
                    } else {
                        tracing::trace!(path = self.cx.pointer(), format = %value, "dropped a format OpenAI strict mode does not support");
                    }
                }
                "items" => {
                    if value.is_array() {
                        return Err(self
                            .cx
                            .error_at(key, unsupported(LABEL, "prefixItems", ESCAPE)));
                    }
                    let mark = self.cx.enter(key)?;
                    let items = self.schema(value)?;
                    self.cx.leave(mark);
                    out.insert(key.clone(), items);
                }
                "$defs" | "definitions" if is_root => {
                    let defs = self.definitions(key, value)?;
                    out.insert(key.clone(), defs);
                }
                "$defs" | "definitions" => {
                    return Err(self.cx.error_at(
                        key,
                        "definitions are only supported at the root of the schema; move them there",
                    ));
                }
                "uniqueItems" if *value == Value::Bool(false) => {}
                key if ANNOTATIONS.contains(&key) => {}
                key if SCOPE_CHANGING.contains(&key) => {
                    return Err(self.cx.error_at(
                        key,
                        format!("`{key}` changes how references resolve; use local `#/$defs/...` references"),
                    ));
                }
                key if CONSTRAINTS.contains(&key) => {
                    return Err(self.cx.error_at(key, unsupported(LABEL, key, ESCAPE)));
                }
                key => {
                    tracing::trace!(
                        path = self.cx.pointer(),
                        keyword = key,
                        "dropped an unknown keyword (an annotation)"
                    );
                }
            }
        }
        if !typed
            && ["properties", "required", "additionalProperties"]
                .iter()
                .any(|k| node.get(k).is_some())
        {
            object = true;
        }
        if object {
            self.object(node, &mut out)?;
        }
        self.union(node, out)
    }

    /// Closes an object: every property required, optional ones nullable, no extra keys.
    fn object(&mut self, node: View<'a>, out: &mut Map<String, Value>) -> Result<(), SchemaError> {
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

    /// Adds the node's `anyOf` (or provably disjoint `oneOf`) to what was lowered so far.
    fn union(&mut self, node: View<'a>, out: Map<String, Value>) -> Result<Value, SchemaError> {
        let Some((key, alternatives)) = self.cx.union(node, &UNION_WORDS)? else {
            return Ok(Value::Object(out));
        };
        if alternatives.is_empty() {
            return Err(self
                .cx
                .error_at(key, format!("an empty `{key}` accepts no value; remove it")));
        }
        let outer = self.cx.enter(key)?;
        let mut lowered = Vec::with_capacity(alternatives.len());
        for (i, alternative) in alternatives.iter().enumerate() {
            let mark = self.cx.enter_index(i)?;
            lowered.push(self.schema(alternative)?);
            self.cx.leave(mark);
        }
        self.cx.leave(outer);
        let union = json!({ "anyOf": lowered });
        // Keywords beside the union must hold for every alternative: distribute them.
        merge::with_union_siblings(out, union, merge_closed)
            .map_err(|reason| self.cx.error_at(key, reason))
    }

    /// `$ref` alone, or with a description (moved onto an `anyOf` wrapper, since OpenAI allows
    /// no siblings next to `$ref`). With constraints beside it, the target is merged with them.
    fn reference(&mut self, node: View<'a>, reference: &'a Value) -> Result<Value, SchemaError> {
        let structural = node
            .iter()
            .any(|(k, _)| k != "$ref" && k != "description" && !ANNOTATIONS.contains(&k.as_str()));
        if structural {
            return self.inlined(node);
        }
        let (reference, _) = self.cx.resolve(reference)?;
        self.limits.reference(&self.scope, self.depth, reference);
        let link = json!({ "$ref": reference });
        Ok(match node.get("description") {
            Some(description) => json!({ "description": description, "anyOf": [link] }),
            None => link,
        })
    }

    /// Lowers `node` with its `$ref` (if any) replaced by the referenced schema, so that it
    /// can be merged with other schemas.
    fn inlined(&mut self, node: View<'a>) -> Result<Value, SchemaError> {
        let Some(reference) = node.get("$ref") else {
            return self.map(node);
        };
        let (reference, target) = self.cx.resolve(reference)?;
        if reference == "#" || self.inlining.contains(&reference) {
            return Err(self.cx.error_at(
                "$ref",
                "a recursive type cannot be merged with the constraints beside its reference; move the recursive part into its own field",
            ));
        }
        self.inlining.push(reference);
        let saved = self.cx.jump(reference)?;
        let target = match target {
            Value::Object(map) => self.inlined(View::new(map))?,
            other => self.schema(other)?,
        };
        self.cx.back(saved);
        self.inlining.pop();
        let rest = self.map(node.without(&["$ref"]))?;
        merge_closed(target, rest).map_err(|reason| self.cx.error_at("$ref", reason))
    }

    /// Merges `allOf` (and the keywords beside it) into one schema.
    fn all_of(&mut self, node: View<'a>, parts: &'a Value) -> Result<Value, SchemaError> {
        let Value::Array(parts) = parts else {
            return Err(self
                .cx
                .error_at("allOf", "`allOf` must be an array of schemas"));
        };
        let rest = node.without(&["allOf"]);
        let structural_rest = rest
            .iter()
            .any(|(k, _)| k != "description" && !ANNOTATIONS.contains(&k.as_str()));
        if let ([only], false) = (parts.as_slice(), structural_rest) {
            // `allOf: [X]` is X (with the node's description).
            let mark = self.cx.enter("allOf")?;
            let inner = self.cx.enter_index(0)?;
            let lowered = self.schema(only)?;
            self.cx.leave(inner);
            self.cx.leave(mark);
            return Ok(with_description(lowered, rest.get("description")));
        }
        let outer = self.cx.enter("allOf")?;
        let mut merged: Option<Value> = None;
        for (i, part) in parts.iter().enumerate() {
            let mark = self.cx.enter_index(i)?;
            let lowered = match part {
                Value::Object(map) => self.inlined(View::new(map))?,
                other => self.schema(other)?,
            };
            merged = Some(match merged {
                None => lowered,
                Some(acc) => merge_closed(acc, lowered).map_err(|reason| self.cx.error(reason))?,
            });
            self.cx.leave(mark);
        }
        self.cx.leave(outer);
        let merged = merged.ok_or_else(|| {
            self.cx
                .error_at("allOf", "an empty `allOf` adds nothing; remove it")
        })?;
        let rest = self.map(rest)?;
        merge_closed(merged, rest).map_err(|reason| self.cx.error_at("allOf", reason))
    }

    fn definitions(&mut self, key: &str, defs: &'a Value) -> Result<Value, SchemaError> {
        let Value::Object(defs) = defs else {
            return Err(self
                .cx
                .error_at(key, format!("`{key}` must map names to schemas")));
        };
        let outer = self.cx.enter(key)?;
        let mut lowered = Map::new();
        for (name, schema) in defs {
            let mark = self.cx.enter(name)?;
            self.limits.definition(&self.cx, name)?;
            let scope = std::mem::replace(&mut self.scope, format!("#{}", self.cx.pointer()));
            let depth = std::mem::replace(&mut self.depth, 0);
            let schema = self.schema(schema)?;
            self.scope = scope;
            self.depth = depth;
            self.cx.leave(mark);
            lowered.insert(name.clone(), schema);
        }
        self.cx.leave(outer);
        Ok(Value::Object(lowered))
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

/// `a ∧ b` as one schema, with every merged object still listing all its properties in
/// `required` (in property order, as everywhere else in strict output).
fn merge_closed(a: Value, b: Value) -> Result<Value, String> {
    let mut merged = merge::conjunction(a, b)?;
    require_all(&mut merged);
    Ok(merged)
}

fn require_all(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    if let Some(Value::Object(properties)) = map.get("properties") {
        let names = properties.keys().cloned().map(Value::String).collect();
        map.insert("required".to_string(), Value::Array(names));
    }
    if let Some(Value::Array(alternatives)) = map.get_mut("anyOf") {
        alternatives.iter_mut().for_each(require_all);
    }
}

/// Puts `description` on a lowered schema; a bare `$ref` gets an `anyOf` wrapper for it.
fn with_description(schema: Value, description: Option<&Value>) -> Value {
    let Some(description) = description else {
        return schema;
    };
    match schema {
        Value::Object(mut map) if !map.contains_key("$ref") => {
            map.insert("description".to_string(), description.clone());
            Value::Object(map)
        }
        link => json!({ "description": description, "anyOf": [link] }),
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
