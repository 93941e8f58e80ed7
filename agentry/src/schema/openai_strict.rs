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

use serde_json::{Map, Value};

use super::keywords::{ANNOTATIONS, CONSTRAINTS, SCOPE_CHANGING, unsupported};
use super::limits::Limits;
use super::walk::{Cx, View, bad_type, type_names};
use super::{Dialect, SchemaError};

mod combinators;
mod objects;

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
}
