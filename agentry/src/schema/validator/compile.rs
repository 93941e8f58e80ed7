//! Compiling a schema into [`Node`]s: every keyword the checks read has the shape the
//! specification gives it, every reference resolves inside the schema, and every pattern is
//! compiled once.

use std::collections::HashMap;

use regex::Regex;
use serde_json::{Map, Value};

use super::CompileError;
use super::node::{Node, NodeId, Rules, TypeSet};
use crate::schema::walk::{push_segment, type_names};

/// How deep subschemas (and the references between them) may nest; deeper ones do not
/// compile, since compiling and checking recurse as deep.
const MAX_NESTING: usize = 128;

/// Compiles `root`; its node is the first of the list.
pub(super) fn compile(root: &Value) -> Result<Vec<Node>, CompileError> {
    let mut anchors = HashMap::new();
    collect_anchors(root, &mut String::new(), &mut anchors, 0);
    let mut compiler = Compiler {
        root,
        anchors,
        nodes: Vec::new(),
        compiled: HashMap::new(),
    };
    compiler.at(String::new(), root, 0)?;
    Ok(compiler.nodes)
}

/// `$anchor` (and `$dynamicAnchor`) names and the JSON pointers of their schemas.
fn collect_anchors(
    node: &Value,
    pointer: &mut String,
    anchors: &mut HashMap<String, String>,
    depth: usize,
) {
    if depth > MAX_NESTING {
        return;
    }
    let len = pointer.len();
    match node {
        Value::Object(map) => {
            for keyword in ["$anchor", "$dynamicAnchor"] {
                if let Some(Value::String(name)) = map.get(keyword) {
                    anchors
                        .entry(name.clone())
                        .or_insert_with(|| pointer.clone());
                }
            }
            for (key, child) in map {
                if child.is_object() || child.is_array() {
                    push_segment(pointer, key);
                    collect_anchors(child, pointer, anchors, depth + 1);
                    pointer.truncate(len);
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                push_segment(pointer, &i.to_string());
                collect_anchors(child, pointer, anchors, depth + 1);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

struct Compiler<'a> {
    root: &'a Value,
    anchors: HashMap<String, String>,
    nodes: Vec<Node>,
    /// The node made for each JSON pointer: a reference to a schema already compiled (or
    /// being compiled, for a recursive one) reuses it.
    compiled: HashMap<String, NodeId>,
}

impl<'a> Compiler<'a> {
    /// The node of `schema`, found at `pointer`.
    fn at(
        &mut self,
        pointer: String,
        schema: &'a Value,
        depth: usize,
    ) -> Result<NodeId, CompileError> {
        if let Some(&id) = self.compiled.get(&pointer) {
            return Ok(id);
        }
        let id = self.nodes.len();
        self.nodes.push(Node::True);
        self.compiled.insert(pointer.clone(), id);
        let node = match schema {
            Value::Bool(true) => Node::True,
            Value::Bool(false) => Node::False,
            Value::Object(map) if map.is_empty() => Node::True,
            Value::Object(_) if depth > MAX_NESTING => {
                return Err(CompileError {
                    pointer,
                    reason: format!("the schema nests more than {MAX_NESTING} levels deep"),
                });
            }
            Value::Object(map) => {
                let mut at = At {
                    compiler: self,
                    pointer,
                    depth,
                };
                Node::Rules(Box::new(at.rules(map)?))
            }
            other => {
                return Err(CompileError {
                    pointer,
                    reason: format!("a schema is an object or a boolean, not `{other}`"),
                });
            }
        };
        self.nodes[id] = node;
        Ok(id)
    }

    /// The JSON pointer a reference points at: `#`, a `#/json/pointer` (percent-encoded or
    /// not), a `#name` anchor, or any of these after the root's own `$id`.
    fn resolve(&self, reference: &str) -> Option<(String, &'a Value)> {
        let id = self.root.get("$id").and_then(Value::as_str);
        let local = match reference.find('#') {
            Some(0) => reference,
            Some(at) if id == Some(&reference[..at]) => &reference[at..],
            None if id == Some(reference) => "#",
            _ => return None,
        };
        let fragment = &local[1..];
        let pointer = if fragment.is_empty() || fragment.starts_with('/') {
            percent_decode(fragment)?
        } else {
            self.anchors.get(fragment)?.clone()
        };
        let target = self.root.pointer(&pointer)?;
        Some((pointer, target))
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

/// Compiling one object schema, at its pointer.
struct At<'c, 'a> {
    compiler: &'c mut Compiler<'a>,
    pointer: String,
    depth: usize,
}

impl<'a> At<'_, 'a> {
    fn error(&self, keyword: &str, reason: impl Into<String>) -> CompileError {
        let mut pointer = self.pointer.clone();
        push_segment(&mut pointer, keyword);
        CompileError {
            pointer,
            reason: reason.into(),
        }
    }

    /// The subschema at `segments` below this one.
    fn child(&mut self, segments: &[&str], schema: &'a Value) -> Result<NodeId, CompileError> {
        let mut pointer = self.pointer.clone();
        for segment in segments {
            push_segment(&mut pointer, segment);
        }
        self.compiler.at(pointer, schema, self.depth + 1)
    }

    fn children(&mut self, keyword: &str, schemas: &'a Value) -> Result<Vec<NodeId>, CompileError> {
        let Value::Array(schemas) = schemas else {
            return Err(self.error(keyword, format!("`{keyword}` is an array of schemas")));
        };
        (0..schemas.len())
            .map(|i| self.child(&[keyword, &i.to_string()], &schemas[i]))
            .collect()
    }

    fn named(
        &mut self,
        keyword: &str,
        schemas: &'a Value,
    ) -> Result<Vec<(String, NodeId)>, CompileError> {
        let Value::Object(schemas) = schemas else {
            return Err(self.error(keyword, format!("`{keyword}` maps names to schemas")));
        };
        schemas
            .iter()
            .map(|(name, schema)| Ok((name.clone(), self.child(&[keyword, name], schema)?)))
            .collect()
    }

    fn optional(
        &mut self,
        keyword: &str,
        map: &'a Map<String, Value>,
    ) -> Result<Option<NodeId>, CompileError> {
        map.get(keyword)
            .map(|schema| self.child(&[keyword], schema))
            .transpose()
    }

    fn rules(&mut self, map: &'a Map<String, Value>) -> Result<Rules, CompileError> {
        let mut rules = Rules::default();
        for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
            match map.get(keyword) {
                None => {}
                Some(Value::String(reference)) => {
                    let Some((pointer, target)) = self.compiler.resolve(reference) else {
                        return Err(self.error(
                            keyword,
                            format!(
                                "`{reference}` does not resolve inside this schema (only local references such as `#/$defs/Name` are followed)"
                            ),
                        ));
                    };
                    rules
                        .refs
                        .push(self.compiler.at(pointer, target, self.depth + 1)?);
                }
                Some(_) => return Err(self.error(keyword, "a reference is a string")),
            }
        }
        self.values(map, &mut rules)?;
        self.subschemas(map, &mut rules)?;
        rules.index();
        Ok(rules)
    }

    /// The keywords whose values are not subschemas.
    fn values(&mut self, map: &Map<String, Value>, rules: &mut Rules) -> Result<(), CompileError> {
        if let Some(ty) = map.get("type") {
            let names = type_names(ty)
                .ok_or_else(|| self.error("type", format!("`{ty}` is not a JSON Schema type")))?;
            rules.types = Some(TypeSet::of(&names));
        }
        match map.get("enum") {
            None => {}
            Some(Value::Array(options)) => rules.enumeration = Some(options.clone()),
            Some(_) => return Err(self.error("enum", "`enum` is an array")),
        }
        rules.constant = map.get("const").cloned();

        let number = |keyword: &str| match map.get(keyword) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(Some(n.clone())),
            Some(Value::Bool(_)) if keyword.starts_with("exclusive") => Ok(None),
            Some(_) => Err(self.error(keyword, format!("`{keyword}` is a number"))),
        };
        let flag = |keyword: &str| map.get(keyword) == Some(&Value::Bool(true));
        rules.minimum = number("minimum")?.map(|n| (n, flag("exclusiveMinimum")));
        rules.maximum = number("maximum")?.map(|n| (n, flag("exclusiveMaximum")));
        rules.exclusive_minimum = number("exclusiveMinimum")?;
        rules.exclusive_maximum = number("exclusiveMaximum")?;
        rules.multiple_of = number("multipleOf")?;
        if rules
            .multiple_of
            .as_ref()
            .is_some_and(|n| n.as_f64().is_none_or(|n| n <= 0.0))
        {
            return Err(self.error("multipleOf", "`multipleOf` is greater than 0"));
        }

        let count = |keyword: &str| match map.get(keyword) {
            None => Ok(None),
            Some(value) => count(value).map(Some).ok_or_else(|| {
                self.error(keyword, format!("`{keyword}` is a non-negative integer"))
            }),
        };
        rules.min_length = count("minLength")?;
        rules.max_length = count("maxLength")?;
        rules.min_items = count("minItems")?;
        rules.max_items = count("maxItems")?;
        rules.min_contains = count("minContains")?;
        rules.max_contains = count("maxContains")?;
        rules.min_properties = count("minProperties")?;
        rules.max_properties = count("maxProperties")?;
        rules.unique_items = map.get("uniqueItems") == Some(&Value::Bool(true));

        match map.get("pattern") {
            None => {}
            Some(Value::String(pattern)) => {
                rules.pattern = compile_pattern(pattern).map(|regex| (pattern.clone(), regex));
            }
            Some(_) => return Err(self.error("pattern", "a pattern is a string")),
        }
        match map.get("required") {
            None => {}
            Some(Value::Array(names)) => {
                rules.required = names
                    .iter()
                    .map(|name| name.as_str().map(str::to_string))
                    .collect::<Option<_>>()
                    .ok_or_else(|| {
                        self.error("required", "`required` lists property names (strings)")
                    })?;
            }
            Some(_) => return Err(self.error("required", "`required` is an array")),
        }
        if let Some(Value::Object(rules_by_name)) = map.get("dependentRequired") {
            for (name, needed) in rules_by_name {
                rules
                    .dependent_required
                    .push((name.clone(), string_list(needed)));
            }
        }
        Ok(())
    }

    fn subschemas(
        &mut self,
        map: &'a Map<String, Value>,
        rules: &mut Rules,
    ) -> Result<(), CompileError> {
        // `items` as an array is draft-07's tuple form, followed by `additionalItems`.
        match (map.get("prefixItems"), map.get("items")) {
            (Some(prefix), _) => {
                rules.prefix_items = self.children("prefixItems", prefix)?;
                rules.items = self.optional("items", map)?;
            }
            (None, Some(items @ Value::Array(_))) => {
                rules.prefix_items = self.children("items", items)?;
                rules.items = self.optional("additionalItems", map)?;
            }
            (None, _) => rules.items = self.optional("items", map)?,
        }
        rules.contains = self.optional("contains", map)?;
        if let Some(properties) = map.get("properties") {
            rules.properties = self.named("properties", properties)?;
        }
        if let Some(patterns) = map.get("patternProperties") {
            for (pattern, node) in self.named("patternProperties", patterns)? {
                match compile_pattern(&pattern) {
                    Some(regex) => rules.pattern_properties.push((regex, node)),
                    None => rules.unknown_pattern = true,
                }
            }
        }
        rules.additional_properties = self.optional("additionalProperties", map)?;
        rules.property_names = self.optional("propertyNames", map)?;
        if let Some(schemas) = map.get("dependentSchemas") {
            rules.dependent_schemas = self.named("dependentSchemas", schemas)?;
        }
        if let Some(dependencies) = map.get("dependencies") {
            let Value::Object(dependencies) = dependencies else {
                return Err(self.error("dependencies", "`dependencies` maps names to schemas"));
            };
            for (name, rule) in dependencies {
                if rule.is_array() {
                    rules
                        .dependent_required
                        .push((name.clone(), string_list(rule)));
                } else {
                    let node = self.child(&["dependencies", name], rule)?;
                    rules.dependent_schemas.push((name.clone(), node));
                }
            }
        }
        for (keyword, list) in [
            ("allOf", &mut rules.all_of),
            ("anyOf", &mut rules.any_of),
            ("oneOf", &mut rules.one_of),
        ] {
            if let Some(schemas) = map.get(keyword) {
                *list = self.children(keyword, schemas)?;
            }
        }
        rules.not = self.optional("not", map)?;
        if let Some(condition) = self.optional("if", map)? {
            rules.condition = Some((
                condition,
                self.optional("then", map)?,
                self.optional("else", map)?,
            ));
        } else {
            // Compiled for their errors, as any subschema is.
            self.optional("then", map)?;
            self.optional("else", map)?;
        }
        // Definitions are compiled for their errors; a reference reuses their nodes.
        for keyword in ["$defs", "definitions"] {
            if let Some(definitions) = map.get(keyword) {
                self.named(keyword, definitions)?;
            }
        }
        Ok(())
    }
}

fn compile_pattern(pattern: &str) -> Option<Regex> {
    match Regex::new(pattern) {
        Ok(regex) => Some(regex),
        Err(error) => {
            tracing::warn!(pattern, %error, "a schema pattern the `regex` crate cannot compile is not enforced");
            None
        }
    }
}

fn string_list(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// A keyword's count (`minLength: 2`, also written `2.0`).
fn count(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                .map(|f| f as u64)
        }),
        _ => None,
    }
}
