//! Google Gemini `functionDeclarations[].parameters`: the API's `Schema` object, "a select
//! subset of an OpenAPI 3.0 schema object".
//!
//! Its fields are `type`, `format`, `description`, `nullable`, `enum` (strings), `properties`,
//! `required`, `items`, `minItems`, `maxItems`, `minLength`, `maxLength`, `pattern`, `minimum`,
//! `maximum`, `minProperties`, `maxProperties` and `anyOf` (plus annotations). So:
//!
//! * every `$ref` is inlined and `$defs` dropped; a recursive type cannot be inlined and is
//!   refused (the cycle is detected, not unrolled) — except by
//!   [`gemini_json`](super::gemini_json), which keeps the recursive references for
//!   `parametersJsonSchema`;
//! * a type array such as `["string", "null"]` becomes `type: "string", nullable: true`, and
//!   `anyOf [T, {"type": "null"}]` becomes `T` with `nullable: true`;
//! * `const` becomes a one-value `enum`; `oneOf` becomes `anyOf` when its alternatives provably
//!   never overlap; `allOf` and `$ref` with constraints beside it are merged;
//! * annotations Gemini rejects (`title`, `default`, `examples`, `$schema`...) are dropped, and
//!   `format` is kept only where Gemini supports it (`int32`/`int64` integers, `float`/`double`
//!   numbers, `enum`/`date-time` strings);
//! * `additionalProperties: false` is dropped (Gemini has no way to say it; a closed struct
//!   still rejects unknown keys when the arguments are parsed), while a map with arbitrary
//!   keys, `serde_json::Value`, sets, tuples, `exclusiveMinimum`, `multipleOf` and other
//!   constraints Gemini cannot express are refused rather than silently widened.

use serde_json::{Map, Value, json};

use super::keywords::{ANNOTATIONS, CONSTRAINTS, SCOPE_CHANGING, unsupported};
use super::merge::{conjunction, with_union_siblings};
use super::walk::{Cx, UnionWords, View, bad_type, type_names};
use super::{Dialect, SchemaError};

/// How union errors are worded for Gemini.
const UNION_WORDS: UnionWords = UnionWords {
    combined: "for Gemini",
    dialect: "Gemini",
    fix: "give the enum a serde tag",
};

const LABEL: &str = "Gemini";
const ANY_VALUE: &str = "this schema accepts any JSON value (e.g. `serde_json::Value`), which Gemini cannot express; use a concrete type";
const MAP: &str = "Gemini cannot express a map with arbitrary keys; use a Vec of key/value structs";
const RECURSIVE: &str = "Gemini needs every `$ref` inlined and this type is recursive, so it cannot be; bound the recursion (e.g. a fixed number of levels) or use another provider";
const RECURSIVE_REF: &str =
    "a recursive reference must point at the root (`#`) or at `#/$defs/Name` to be sent to Gemini";
const RECURSIVE_SIBLINGS: &str = "a recursive reference cannot carry constraints beside it for Gemini; move them into the referenced type";
const ROOT: &str = "the root schema must be a plain object (`type: \"object\"`); wrap the type in a struct with one field";
/// How many schema nodes inlining may produce; each use of a definition is a copy of it.
const MAX_NODES: usize = 20_000;

pub(super) fn lower(canonical: &Value) -> Result<Value, SchemaError> {
    lower_gemini(canonical).inspect_err(super::walk::log_refusal)
}

fn lower_gemini(canonical: &Value) -> Result<Value, SchemaError> {
    lower_root(&mut Gemini::new(canonical, None))
}

/// Lowers the root of `gemini`'s schema, which must be a plain object.
pub(super) fn lower_root<'a>(gemini: &mut Gemini<'a>) -> Result<Value, SchemaError> {
    let canonical: &'a Value = gemini.cx.root;
    let is_object = canonical.get("type").is_some_and(|t| t == "object");
    let combined = ["anyOf", "oneOf", "$ref", "enum", "const"]
        .iter()
        .any(|k| canonical.get(k).is_some());
    if !is_object || combined {
        return Err(gemini.cx.error(ROOT));
    }
    let lowered = gemini.schema(canonical)?;
    // Merging `allOf` parts could still distribute a union over the root.
    if lowered.get("type").is_none_or(|t| t != "object") {
        return Err(gemini.cx.error(ROOT));
    }
    Ok(lowered)
}

pub(super) struct Gemini<'a> {
    pub(super) cx: Cx<'a>,
    /// References being inlined, outermost first (cycle guard).
    pub(super) inlining: Vec<&'a str>,
    nodes: usize,
    /// `None`: a recursive reference is refused. `Some`: it is kept as a `$ref`, and the
    /// references kept so far are listed here (for `parametersJsonSchema`).
    pub(super) kept: Option<Vec<&'a str>>,
}

impl<'a> Gemini<'a> {
    /// A walk over `canonical`; `kept` as in the field.
    pub(super) fn new(canonical: &'a Value, kept: Option<Vec<&'a str>>) -> Self {
        Gemini {
            cx: Cx::new(Dialect::Gemini, canonical),
            // The root is being inlined for the whole walk: `$ref: "#"` is recursion.
            inlining: vec!["#"],
            nodes: 0,
            kept,
        }
    }

    /// Lowers a whole schema: the result always has a `type` or an `anyOf`.
    pub(super) fn schema(&mut self, node: &'a Value) -> Result<Value, SchemaError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(self.cx.error(format!(
                "inlining every `$ref` makes this schema larger than {MAX_NODES} nodes; use fewer shared types"
            )));
        }
        let mut lowered = self.map(self.cx.view(node, ANY_VALUE)?)?;
        if let Value::Object(map) = &mut lowered
            && !map.contains_key("type")
            && !map.contains_key("anyOf")
            && !map.contains_key("$ref")
        {
            if map.contains_key("enum") {
                map.insert("type".to_string(), json!("string"));
            } else {
                return Err(self.cx.error(ANY_VALUE));
            }
        }
        Ok(lowered)
    }

    /// Lowers a schema object, or part of one (for merging).
    fn map(&mut self, node: View<'a>) -> Result<Value, SchemaError> {
        if node.get("$ref").is_some() {
            return self.reference(node);
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
        let mut nullable = false;
        let mut type_name: Option<&str> = None;
        for (key, value) in node.iter() {
            match key.as_str() {
                "type" => {
                    let names = type_names(value).ok_or_else(|| bad_type(&self.cx))?;
                    nullable |= names.contains(&"null");
                    let mut rest = names.iter().filter(|n| **n != "null");
                    match (rest.next(), rest.next()) {
                        (Some(name), None) => {
                            type_name = Some(name);
                            out.insert(key.clone(), json!(name));
                        }
                        (None, _) => {
                            return Err(self.cx.error_at(key, "Gemini has no `null` type; remove the field or make it an `Option` of a real type"));
                        }
                        (Some(_), Some(_)) => {
                            return Err(self.cx.error_at(key, "Gemini allows one type per schema; use an untagged enum with one variant per type"));
                        }
                    }
                }
                "properties" | "required" | "additionalProperties" | "unevaluatedProperties" => {}
                "anyOf" | "oneOf" => {}
                "description" | "minItems" | "maxItems" | "minLength" | "maxLength" | "pattern"
                | "minimum" | "maximum" | "minProperties" | "maxProperties" => {
                    out.insert(key.clone(), value.clone());
                }
                "enum" => {
                    let Value::Array(values) = value else {
                        return Err(self.cx.error_at(key, "`enum` must be an array of values"));
                    };
                    let mut strings = Vec::with_capacity(values.len());
                    for v in values {
                        match v {
                            Value::String(_) => strings.push(v.clone()),
                            Value::Null => nullable = true,
                            _ => {
                                return Err(self.cx.error_at(key, format!("Gemini enums hold only strings, not `{v}`; use string values")));
                            }
                        }
                    }
                    out.insert(key.clone(), Value::Array(strings));
                }
                "const" => match value {
                    Value::String(_) => {
                        out.insert("enum".to_string(), json!([value]));
                    }
                    _ => {
                        return Err(self.cx.error_at(key, format!("Gemini can only fix a value to a string (as a one-value enum), not `{value}`; use a string constant")));
                    }
                },
                "format" => {
                    out.insert(key.clone(), value.clone());
                }
                "items" => {
                    if value.is_array() {
                        return Err(self.cx.error_at(key, unsupported(LABEL, "prefixItems", "")));
                    }
                    let mark = self.cx.enter(key)?;
                    let items = self.schema(value)?;
                    self.cx.leave(mark);
                    out.insert(key.clone(), items);
                }
                // Definitions are inlined where they are used.
                "$defs" | "definitions" if is_root => {
                    if !value.is_object() {
                        return Err(self
                            .cx
                            .error_at(key, format!("`{key}` must map names to schemas")));
                    }
                }
                "$defs" | "definitions" => {
                    return Err(self.cx.error_at(
                        key,
                        "definitions are only supported at the root of the schema; move them there",
                    ));
                }
                "uniqueItems" if *value == Value::Bool(false) => {}
                "nullable" if *value == Value::Bool(true) => nullable = true,
                key if ANNOTATIONS.contains(&key) => {}
                key if SCOPE_CHANGING.contains(&key) => {
                    return Err(self.cx.error_at(
                        key,
                        format!("`{key}` changes how references resolve; use local `#/$defs/...` references"),
                    ));
                }
                key if CONSTRAINTS.contains(&key) => {
                    return Err(self.cx.error_at(key, unsupported(LABEL, key, "")));
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
        keep_supported_format(&mut out, type_name);
        let object = type_name == Some("object")
            || (type_name.is_none()
                && ["properties", "required", "additionalProperties"]
                    .iter()
                    .any(|k| node.get(k).is_some()));
        if object {
            self.object(node, &mut out)?;
        }
        let lowered = self.union(node, out)?;
        Ok(if nullable {
            make_nullable(lowered)
        } else {
            lowered
        })
    }

    fn object(&mut self, node: View<'a>, out: &mut Map<String, Value>) -> Result<(), SchemaError> {
        for keyword in ["additionalProperties", "unevaluatedProperties"] {
            match node.get(keyword) {
                None | Some(Value::Bool(false)) => {}
                Some(_) => return Err(self.cx.error_at(keyword, MAP)),
            }
        }
        let required = match node.get("required") {
            None => Vec::new(),
            Some(Value::Array(names)) if names.iter().all(Value::is_string) => names.clone(),
            Some(_) => {
                return Err(self
                    .cx
                    .error_at("required", "`required` must be an array of property names"));
            }
        };
        let properties = match node.get("properties") {
            None => None,
            Some(Value::Object(properties)) => Some(properties),
            Some(_) => {
                return Err(self
                    .cx
                    .error_at("properties", "`properties` must map names to schemas"));
            }
        };
        let declared = |name: &Value| {
            properties.is_some_and(|p| name.as_str().is_some_and(|n| p.contains_key(n)))
        };
        if let Some(missing) = required.iter().find(|name| !declared(name)) {
            return Err(self.cx.error_at(
                "required",
                format!("{missing} is required but has no schema under `properties`; declare it"),
            ));
        }
        let mut lowered = Map::new();
        let outer = self.cx.enter("properties")?;
        for (name, schema) in properties.into_iter().flatten() {
            let mark = self.cx.enter(name)?;
            lowered.insert(name.clone(), self.schema(schema)?);
            self.cx.leave(mark);
        }
        self.cx.leave(outer);
        out.entry("type").or_insert_with(|| json!("object"));
        out.insert("properties".to_string(), Value::Object(lowered));
        if !required.is_empty() {
            out.insert("required".to_string(), Value::Array(required));
        }
        Ok(())
    }

    /// Adds the node's `anyOf` (or provably disjoint `oneOf`), turning a `null` alternative
    /// into `nullable` and a single remaining alternative into the schema itself.
    fn union(&mut self, node: View<'a>, out: Map<String, Value>) -> Result<Value, SchemaError> {
        let Some((key, alternatives)) = self.cx.union(node, &UNION_WORDS)? else {
            return Ok(Value::Object(out));
        };
        let outer = self.cx.enter(key)?;
        let mut lowered = Vec::with_capacity(alternatives.len());
        let mut nullable = false;
        for (i, alternative) in alternatives.iter().enumerate() {
            if is_null_only(alternative) {
                nullable = true;
                continue;
            }
            let mark = self.cx.enter_index(i)?;
            lowered.push(self.schema(alternative)?);
            self.cx.leave(mark);
        }
        self.cx.leave(outer);
        let union = match lowered.len() {
            0 => {
                return Err(self.cx.error_at(key, "Gemini has no `null` type; remove the field or make it an `Option` of a real type"));
            }
            1 => lowered.pop().unwrap_or(Value::Null),
            _ => json!({ "anyOf": lowered }),
        };
        let union = if nullable {
            make_nullable(union)
        } else {
            union
        };
        with_union_siblings(out, union, conjunction).map_err(|reason| self.cx.error_at(key, reason))
    }

    /// Inlines the referenced schema, merged with whatever is beside the `$ref`.
    fn reference(&mut self, node: View<'a>) -> Result<Value, SchemaError> {
        let Some(reference) = node.get("$ref") else {
            return self.map(node);
        };
        let (reference, target) = self.cx.resolve(reference)?;
        if self.inlining.contains(&reference) {
            return self.keep_recursive(reference, node);
        }
        self.inlining.push(reference);
        let saved = self.cx.jump(reference)?;
        let target = self.schema(target)?;
        self.cx.back(saved);
        self.inlining.pop();
        let rest = node.without(&["$ref"]);
        if rest.iter().all(|(k, _)| ANNOTATIONS.contains(&k.as_str())) {
            return Ok(target);
        }
        let rest = self.map(rest)?;
        conjunction(target, rest).map_err(|reason| self.cx.error_at("$ref", reason))
    }

    /// A reference back into a type being inlined: refused, or kept as a `$ref` to the root
    /// or to a `$defs` entry (emitted by [`gemini_json`](super::gemini_json)).
    fn keep_recursive(&mut self, reference: &'a str, node: View<'a>) -> Result<Value, SchemaError> {
        let Some(kept) = self.kept.as_mut() else {
            return Err(self.cx.error_at("$ref", RECURSIVE));
        };
        if reference != "#" && def_name(reference).is_none() {
            return Err(self.cx.error_at("$ref", RECURSIVE_REF));
        }
        if !node
            .without(&["$ref"])
            .iter()
            .all(|(k, _)| ANNOTATIONS.contains(&k.as_str()))
        {
            return Err(self.cx.error_at("$ref", RECURSIVE_SIBLINGS));
        }
        if !kept.contains(&reference) {
            kept.push(reference);
        }
        Ok(json!({ "$ref": reference }))
    }

    fn all_of(&mut self, node: View<'a>, parts: &'a Value) -> Result<Value, SchemaError> {
        let Value::Array(parts) = parts else {
            return Err(self
                .cx
                .error_at("allOf", "`allOf` must be an array of schemas"));
        };
        let outer = self.cx.enter("allOf")?;
        let mut merged: Option<Value> = None;
        for (i, part) in parts.iter().enumerate() {
            let mark = self.cx.enter_index(i)?;
            let lowered = self.schema(part)?;
            merged = Some(match merged {
                None => lowered,
                Some(acc) => conjunction(acc, lowered).map_err(|reason| self.cx.error(reason))?,
            });
            self.cx.leave(mark);
        }
        self.cx.leave(outer);
        let merged = merged.ok_or_else(|| {
            self.cx
                .error_at("allOf", "an empty `allOf` adds nothing; remove it")
        })?;
        let rest = node.without(&["allOf"]);
        if rest.iter().all(|(k, _)| ANNOTATIONS.contains(&k.as_str())) {
            return Ok(merged);
        }
        let rest = self.map(rest)?;
        conjunction(merged, rest).map_err(|reason| self.cx.error_at("allOf", reason))
    }
}

/// `{"type": "null"}` (with annotations at most).
fn is_null_only(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return false;
    };
    map.get("type").is_some_and(|t| t == "null")
        && map
            .keys()
            .all(|k| k == "type" || k == "description" || ANNOTATIONS.contains(&k.as_str()))
}

/// The name of a `#/$defs/Name` reference.
pub(super) fn def_name(reference: &str) -> Option<&str> {
    reference
        .strip_prefix("#/$defs/")
        .filter(|name| !name.is_empty() && !name.contains(['/', '~']))
}

/// Marks a lowered schema as also accepting `null`; for a union, every alternative.
fn make_nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    if map.contains_key("$ref") {
        // A kept recursive reference: nothing may stand beside it, so it becomes a union.
        return json!({ "anyOf": [Value::Object(map)], "nullable": true });
    }
    if let Some(Value::Array(alternatives)) = map.remove("anyOf") {
        let alternatives = alternatives.into_iter().map(make_nullable).collect();
        map.insert("anyOf".to_string(), Value::Array(alternatives));
    } else {
        map.insert("nullable".to_string(), Value::Bool(true));
    }
    Value::Object(map)
}

/// Keeps `format` only where Gemini supports it; elsewhere it is an annotation and dropped.
fn keep_supported_format(out: &mut Map<String, Value>, type_name: Option<&str>) {
    let supported = match (type_name, out.get("format").and_then(Value::as_str)) {
        (_, None) => return,
        (Some("integer"), Some(f)) => matches!(f, "int32" | "int64"),
        (Some("number"), Some(f)) => matches!(f, "float" | "double"),
        (Some("string"), Some(f)) => matches!(f, "enum" | "date-time"),
        _ => false,
    };
    if !supported {
        out.remove("format");
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::make_nullable;

    #[test]
    fn nullable_reaches_every_alternative() {
        assert_eq!(
            make_nullable(json!({ "anyOf": [{ "type": "string" }, { "type": "integer" }] })),
            json!({ "anyOf": [
                { "type": "string", "nullable": true },
                { "type": "integer", "nullable": true }
            ]})
        );
    }
}
