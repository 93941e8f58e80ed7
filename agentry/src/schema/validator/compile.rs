//! Compiling a schema: every keyword the checks read has the shape the specification gives it,
//! every reference resolves inside the schema, and every pattern is compiled once.

use std::collections::HashMap;

use regex::Regex;
use serde_json::{Map, Value};

use super::CompileError;
use crate::schema::keywords::{SUBSCHEMA, SUBSCHEMA_ARRAYS, SUBSCHEMA_MAPS};
use crate::schema::walk::{push_segment, type_names};

/// How deep a schema may nest; deeper ones do not compile (the checks recurse as deep).
const MAX_NESTING: usize = 128;

/// What compiling a schema leaves for the checks.
pub(super) struct Compiled {
    pub(super) patterns: HashMap<String, Option<Regex>>,
    pub(super) anchors: HashMap<String, String>,
}

/// Walks `root`, checking each keyword and collecting patterns and anchors.
pub(super) fn compile(root: &Value) -> Result<Compiled, CompileError> {
    let mut walk = Walk {
        pointer: String::new(),
        compiled: Compiled {
            patterns: HashMap::new(),
            anchors: HashMap::new(),
        },
        refs: Vec::new(),
    };
    walk.node(root, 0)?;
    // References are checked once every anchor is known.
    for (pointer, reference) in std::mem::take(&mut walk.refs) {
        if target(root, &walk.compiled.anchors, &reference).is_none() {
            return Err(CompileError {
                pointer,
                reason: format!(
                    "`{reference}` does not resolve inside this schema (only local references such as `#/$defs/Name` are followed)"
                ),
            });
        }
    }
    Ok(walk.compiled)
}

/// The node a reference points at: `#`, a `#/json/pointer` (percent-encoded or not), a
/// `#name` anchor, or any of these after the root's own `$id`.
pub(super) fn target<'a>(
    root: &'a Value,
    anchors: &HashMap<String, String>,
    reference: &str,
) -> Option<&'a Value> {
    let local = match reference.find('#') {
        Some(0) => reference,
        Some(at) if root.get("$id").and_then(Value::as_str) == Some(&reference[..at]) => {
            &reference[at..]
        }
        _ if root.get("$id").and_then(Value::as_str) == Some(reference) => "#",
        _ => return None,
    };
    let fragment = &local[1..];
    if fragment.is_empty() {
        Some(root)
    } else if fragment.starts_with('/') {
        root.pointer(&percent_decode(fragment)?)
    } else {
        root.pointer(anchors.get(fragment)?)
    }
}

fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_string());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

struct Walk {
    pointer: String,
    compiled: Compiled,
    /// Every reference met, with where it was: checked after the walk.
    refs: Vec<(String, String)>,
}

impl Walk {
    fn error(&self, keyword: &str, reason: impl Into<String>) -> CompileError {
        let mut pointer = self.pointer.clone();
        push_segment(&mut pointer, keyword);
        CompileError {
            pointer,
            reason: reason.into(),
        }
    }

    /// Walks the subschema at `segments` below the current node.
    fn child(&mut self, segments: &[&str], node: &Value, depth: usize) -> Result<(), CompileError> {
        let len = self.pointer.len();
        for segment in segments {
            push_segment(&mut self.pointer, segment);
        }
        let result = self.node(node, depth + 1);
        self.pointer.truncate(len);
        result
    }

    fn node(&mut self, node: &Value, depth: usize) -> Result<(), CompileError> {
        let schema = match node {
            Value::Bool(_) => return Ok(()),
            Value::Object(schema) => schema,
            other => {
                return Err(CompileError {
                    pointer: self.pointer.clone(),
                    reason: format!("a schema is an object or a boolean, not `{other}`"),
                });
            }
        };
        if depth > MAX_NESTING {
            return Err(CompileError {
                pointer: self.pointer.clone(),
                reason: format!("the schema nests more than {MAX_NESTING} levels deep"),
            });
        }
        self.keywords(schema)?;
        self.subschemas(schema, depth)
    }

    /// The keywords whose values are not subschemas.
    fn keywords(&mut self, schema: &Map<String, Value>) -> Result<(), CompileError> {
        for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
            match schema.get(keyword) {
                None => {}
                Some(Value::String(reference)) => {
                    let mut at = self.pointer.clone();
                    push_segment(&mut at, keyword);
                    self.refs.push((at, reference.clone()));
                }
                Some(_) => return Err(self.error(keyword, "a reference is a string")),
            }
        }
        for keyword in ["$anchor", "$dynamicAnchor"] {
            if let Some(Value::String(name)) = schema.get(keyword) {
                self.compiled
                    .anchors
                    .entry(name.clone())
                    .or_insert_with(|| self.pointer.clone());
            }
        }
        if let Some(ty) = schema.get("type")
            && type_names(ty).is_none()
        {
            return Err(self.error("type", format!("`{ty}` is not a JSON Schema type")));
        }
        if let Some(pattern) = schema.get("pattern") {
            let Value::String(pattern) = pattern else {
                return Err(self.error("pattern", "a pattern is a string"));
            };
            self.pattern(pattern);
        }
        if let Some(Value::Object(patterns)) = schema.get("patternProperties") {
            for pattern in patterns.keys() {
                self.pattern(pattern);
            }
        }
        for keyword in ["required", "enum"] {
            match schema.get(keyword) {
                None | Some(Value::Array(_)) => {}
                Some(_) => return Err(self.error(keyword, format!("`{keyword}` is an array"))),
            }
        }
        if let Some(Value::Array(names)) = schema.get("required")
            && !names.iter().all(Value::is_string)
        {
            return Err(self.error("required", "`required` lists property names (strings)"));
        }
        for keyword in ["minimum", "maximum", "multipleOf"] {
            if schema.get(keyword).is_some_and(|v| !v.is_number()) {
                return Err(self.error(keyword, format!("`{keyword}` is a number")));
            }
        }
        for keyword in ["exclusiveMinimum", "exclusiveMaximum"] {
            if schema
                .get(keyword)
                .is_some_and(|v| !v.is_number() && !v.is_boolean())
            {
                return Err(self.error(keyword, format!("`{keyword}` is a number")));
            }
        }
        for keyword in [
            "minLength",
            "maxLength",
            "minItems",
            "maxItems",
            "minProperties",
            "maxProperties",
            "minContains",
            "maxContains",
        ] {
            if schema.get(keyword).is_some_and(|v| count(v).is_none()) {
                return Err(self.error(keyword, format!("`{keyword}` is a non-negative integer")));
            }
        }
        if let Some(Value::Number(n)) = schema.get("multipleOf")
            && n.as_f64().is_none_or(|n| n <= 0.0)
        {
            return Err(self.error("multipleOf", "`multipleOf` is greater than 0"));
        }
        Ok(())
    }

    fn pattern(&mut self, pattern: &str) {
        if self.compiled.patterns.contains_key(pattern) {
            return;
        }
        let compiled = match Regex::new(pattern) {
            Ok(regex) => Some(regex),
            Err(error) => {
                tracing::warn!(pattern, %error, "a schema pattern the `regex` crate cannot compile is not enforced");
                None
            }
        };
        self.compiled.patterns.insert(pattern.to_string(), compiled);
    }

    fn subschemas(
        &mut self,
        schema: &Map<String, Value>,
        depth: usize,
    ) -> Result<(), CompileError> {
        for &keyword in SUBSCHEMA {
            match schema.get(keyword) {
                None => {}
                // Draft-07's tuple form.
                Some(Value::Array(items)) if keyword == "items" => {
                    for (i, item) in items.iter().enumerate() {
                        self.child(&[keyword, &i.to_string()], item, depth)?;
                    }
                }
                Some(node) => self.child(&[keyword], node, depth)?,
            }
        }
        for &keyword in SUBSCHEMA_ARRAYS {
            match schema.get(keyword) {
                None => {}
                Some(Value::Array(items)) => {
                    for (i, item) in items.iter().enumerate() {
                        self.child(&[keyword, &i.to_string()], item, depth)?;
                    }
                }
                Some(_) => {
                    return Err(self.error(keyword, format!("`{keyword}` is an array of schemas")));
                }
            }
        }
        for keyword in SUBSCHEMA_MAPS.iter().chain(&["dependencies"]) {
            match schema.get(*keyword) {
                None => {}
                Some(Value::Object(map)) => {
                    for (name, node) in map {
                        // Draft-07's `dependencies` also maps a name to required names.
                        if *keyword == "dependencies" && node.is_array() {
                            continue;
                        }
                        self.child(&[keyword, name], node, depth)?;
                    }
                }
                Some(_) => {
                    return Err(self.error(keyword, format!("`{keyword}` maps names to schemas")));
                }
            }
        }
        Ok(())
    }
}

/// A keyword's count (`minLength: 2`, also written `2.0`).
pub(super) fn count(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                .map(|f| f as u64)
        }),
        _ => None,
    }
}
