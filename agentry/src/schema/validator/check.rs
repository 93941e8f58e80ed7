//! Checking one value against a compiled schema, keyword by keyword.

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

use super::compile::{count, target};
use super::equal::{compare, equal, is_integral, is_multiple};
use super::{Validator, Violation, ViolationKind};
use crate::schema::walk::{push_segment, type_names};

/// How many subschemas deep a check may go. A value parsed by serde_json nests at most 128
/// levels, and a schema at most 128 (else it does not compile).
const MAX_DEPTH: usize = 1024;

/// How many subschemas a check may enter without descending into the value (references and
/// combinators): a reference that loops (`{"$ref": "#"}`) stops here instead of overflowing
/// the stack.
const MAX_STALLED: usize = 128;

/// How deep a check is.
#[derive(Clone, Copy)]
pub(super) struct Depth {
    total: usize,
    /// Subschemas entered since the last descent into the value.
    stalled: usize,
}

impl Depth {
    pub(super) const ROOT: Depth = Depth {
        total: 0,
        stalled: 0,
    };

    /// Into a part of the value (a property, an element).
    fn descend(self) -> Depth {
        Depth {
            total: self.total + 1,
            stalled: 0,
        }
    }

    /// Into another subschema of the same value.
    fn step(self) -> Depth {
        Depth {
            total: self.total + 1,
            stalled: self.stalled + 1,
        }
    }

    fn too_deep(self) -> bool {
        self.total > MAX_DEPTH || self.stalled > MAX_STALLED
    }
}

/// How much of a value a message quotes.
const SHOWN: usize = 120;

/// One check of one value: where it is and what failed so far.
pub(super) struct Run<'v> {
    validator: &'v Validator,
    /// Stop at the first violation (for [`Validator::is_valid`] and probes).
    first_only: bool,
    /// The JSON pointer of the value being checked.
    path: String,
    violations: Vec<Violation>,
}

impl<'v> Run<'v> {
    pub(super) fn new(validator: &'v Validator, first_only: bool) -> Self {
        Run {
            validator,
            first_only,
            path: String::new(),
            violations: Vec::new(),
        }
    }

    pub(super) fn into_violations(self) -> Vec<Violation> {
        self.violations
    }

    fn done(&self) -> bool {
        self.first_only && !self.violations.is_empty()
    }

    fn fail(&mut self, message: String) {
        self.fail_as(ViolationKind::Other, message);
    }

    fn fail_as(&mut self, kind: ViolationKind, message: String) {
        self.violations.push(Violation {
            instance_path: self.path.clone(),
            kind,
            message,
        });
    }

    /// Whether `value` satisfies `schema`, recording nothing (for `anyOf`, `not`, `if`..).
    fn probe(&self, schema: &Value, value: &Value, depth: Depth) -> bool {
        Run::new(self.validator, true).schema(schema, value, depth)
    }

    /// Checks `value` against `schema`; whether it passed.
    pub(super) fn schema(&mut self, schema: &Value, value: &Value, depth: Depth) -> bool {
        let before = self.violations.len();
        match schema {
            Value::Bool(true) => return true,
            Value::Bool(false) => {
                self.fail(format!("False schema does not allow {}", shown(value)));
                return false;
            }
            Value::Object(_) if depth.too_deep() => {
                self.fail(format!(
                    "the schema nests more than {MAX_STALLED} references or combinators without a step into the value, or schema and value nest more than {MAX_DEPTH} levels"
                ));
            }
            Value::Object(schema) => self.keywords(schema, value, depth),
            // Not a schema: `Validator::new` refused it.
            _ => {}
        }
        self.violations.len() == before
    }

    fn keywords(&mut self, schema: &Map<String, Value>, value: &Value, depth: Depth) {
        for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
            if let Some(Value::String(reference)) = schema.get(keyword)
                && let Some(node) = target(&self.validator.root, &self.validator.anchors, reference)
            {
                self.schema(node, value, depth.step());
                if self.done() {
                    return;
                }
            }
        }
        self.kind(schema, value);
        if self.done() {
            return;
        }
        match value {
            Value::Number(n) => self.number(schema, n),
            Value::String(s) => self.string(schema, s, value),
            Value::Array(items) => self.array(schema, items, value, depth),
            Value::Object(object) => self.object(schema, object, value, depth),
            Value::Null | Value::Bool(_) => {}
        }
        if self.done() {
            return;
        }
        self.combinators(schema, value, depth);
    }

    /// `type`, `enum` and `const`.
    fn kind(&mut self, schema: &Map<String, Value>, value: &Value) {
        if let Some(names) = schema.get("type").and_then(type_names)
            && !names.iter().any(|name| is_type(value, name))
        {
            let names: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
            let types = if names.len() == 1 { "type" } else { "types" };
            self.fail(format!(
                "{} is not of {types} {}",
                shown(value),
                names.join(", ")
            ));
        }
        if let Some(Value::Array(options)) = schema.get("enum")
            && !options.iter().any(|option| equal(option, value))
        {
            self.fail(format!(
                "{} is not one of {}",
                shown(value),
                shown(&Value::Array(options.clone()))
            ));
        }
        if let Some(expected) = schema.get("const")
            && !equal(expected, value)
        {
            self.fail(format!("{} was expected", shown(expected)));
        }
    }

    fn number(&mut self, schema: &Map<String, Value>, n: &Number) {
        let bound = |keyword: &str| match schema.get(keyword) {
            Some(Value::Number(bound)) => Some(bound.clone()),
            _ => None,
        };
        // Draft-04's boolean `exclusiveMinimum` / `exclusiveMaximum` change their sibling.
        let flag = |keyword: &str| schema.get(keyword) == Some(&Value::Bool(true));
        if let Some(limit) = bound("minimum") {
            match compare(n, &limit) {
                Some(Ordering::Less) => {
                    self.fail(format!("{n} is less than the minimum of {limit}"));
                }
                Some(Ordering::Equal) if flag("exclusiveMinimum") => {
                    self.fail(format!(
                        "{n} is less than or equal to the minimum of {limit}"
                    ));
                }
                _ => {}
            }
        }
        if let Some(limit) = bound("maximum") {
            match compare(n, &limit) {
                Some(Ordering::Greater) => {
                    self.fail(format!("{n} is greater than the maximum of {limit}"));
                }
                Some(Ordering::Equal) if flag("exclusiveMaximum") => {
                    self.fail(format!(
                        "{n} is greater than or equal to the maximum of {limit}"
                    ));
                }
                _ => {}
            }
        }
        if let Some(limit) = bound("exclusiveMinimum")
            && compare(n, &limit).is_some_and(Ordering::is_le)
        {
            self.fail(format!(
                "{n} is less than or equal to the minimum of {limit}"
            ));
        }
        if let Some(limit) = bound("exclusiveMaximum")
            && compare(n, &limit).is_some_and(Ordering::is_ge)
        {
            self.fail(format!(
                "{n} is greater than or equal to the maximum of {limit}"
            ));
        }
        if let Some(by) = bound("multipleOf")
            && !is_multiple(n, &by)
        {
            self.fail(format!("{n} is not a multiple of {by}"));
        }
    }

    fn string(&mut self, schema: &Map<String, Value>, text: &str, value: &Value) {
        let length = || text.chars().count() as u64;
        if let Some(min) = schema.get("minLength").and_then(count)
            && length() < min
        {
            self.fail(format!(
                "{} is shorter than {min} character{}",
                shown(value),
                plural(min)
            ));
        }
        if let Some(max) = schema.get("maxLength").and_then(count)
            && length() > max
        {
            self.fail(format!(
                "{} is longer than {max} character{}",
                shown(value),
                plural(max)
            ));
        }
        if let Some(Value::String(pattern)) = schema.get("pattern")
            && let Some(Some(regex)) = self.validator.patterns.get(pattern)
            && !regex.is_match(text)
        {
            self.fail(format!("{} does not match \"{pattern}\"", shown(value)));
        }
    }

    fn array(&mut self, schema: &Map<String, Value>, items: &[Value], value: &Value, depth: Depth) {
        if let Some(min) = schema.get("minItems").and_then(count)
            && (items.len() as u64) < min
        {
            self.fail(format!(
                "{} has less than {min} item{}",
                shown(value),
                plural(min)
            ));
        }
        if let Some(max) = schema.get("maxItems").and_then(count)
            && (items.len() as u64) > max
        {
            self.fail(format!(
                "{} has more than {max} item{}",
                shown(value),
                plural(max)
            ));
        }
        if schema.get("uniqueItems") == Some(&Value::Bool(true))
            && items
                .iter()
                .enumerate()
                .any(|(i, a)| items[i + 1..].iter().any(|b| equal(a, b)))
        {
            self.fail(format!("{} has non-unique elements", shown(value)));
        }
        if self.done() {
            return;
        }
        // Which schema each element answers to: `prefixItems` (or draft-07's array `items`)
        // by position, then `items` (or draft-07's `additionalItems`).
        let (prefix, rest) = match (schema.get("prefixItems"), schema.get("items")) {
            (Some(Value::Array(prefix)), rest) => (prefix.as_slice(), rest),
            (_, Some(Value::Array(prefix))) => (prefix.as_slice(), schema.get("additionalItems")),
            (_, rest) => (&[][..], rest),
        };
        for (i, item) in items.iter().enumerate() {
            let Some(each) = prefix.get(i).or(rest) else {
                continue;
            };
            let len = self.path.len();
            self.path.push('/');
            self.path.push_str(&i.to_string());
            self.schema(each, item, depth.descend());
            self.path.truncate(len);
            if self.done() {
                return;
            }
        }
        if let Some(contains) = schema.get("contains") {
            let matches = items
                .iter()
                .filter(|item| self.probe(contains, item, depth.descend()))
                .count() as u64;
            let min = schema.get("minContains").and_then(count).unwrap_or(1);
            if matches < min {
                self.fail(if min == 1 {
                    format!("None of {} are valid under the given schema", shown(value))
                } else {
                    format!(
                        "{} contains fewer than {min} items valid under the given schema",
                        shown(value)
                    )
                });
            }
            if let Some(max) = schema.get("maxContains").and_then(count)
                && matches > max
            {
                self.fail(format!(
                    "{} contains more than {max} item{} valid under the given schema",
                    shown(value),
                    plural(max)
                ));
            }
        }
    }

    fn object(
        &mut self,
        schema: &Map<String, Value>,
        object: &Map<String, Value>,
        value: &Value,
        depth: Depth,
    ) {
        let properties = schema.get("properties").and_then(Value::as_object);
        let patterns = schema.get("patternProperties").and_then(Value::as_object);
        if let Some(properties) = properties {
            for (name, each) in properties {
                if let Some(field) = object.get(name) {
                    self.field(name, each, field, depth);
                    if self.done() {
                        return;
                    }
                }
            }
        }
        let mut by_pattern = Vec::new();
        if let Some(patterns) = patterns {
            for (pattern, each) in patterns {
                let Some(Some(regex)) = self.validator.patterns.get(pattern) else {
                    continue;
                };
                for (name, field) in object {
                    if regex.is_match(name) {
                        by_pattern.push(name.as_str());
                        self.field(name, each, field, depth);
                        if self.done() {
                            return;
                        }
                    }
                }
            }
        }
        if let Some(additional) = schema.get("additionalProperties") {
            let declared = |name: &String| {
                properties.is_some_and(|p| p.contains_key(name))
                    || by_pattern.contains(&name.as_str())
                    // A pattern `regex` cannot compile: its names are not "additional".
                    || patterns.is_some_and(|p| {
                        p.keys()
                            .any(|k| matches!(self.validator.patterns.get(k), Some(None)))
                    })
            };
            let extra: Vec<&String> = object.keys().filter(|name| !declared(name)).collect();
            if additional == &Value::Bool(false) {
                if !extra.is_empty() {
                    let quoted: Vec<String> = extra.iter().map(|n| format!("'{n}'")).collect();
                    let verb = if extra.len() == 1 { "was" } else { "were" };
                    self.fail_as(
                        ViolationKind::AdditionalProperties {
                            unexpected: extra.iter().map(|n| n.to_string()).collect(),
                        },
                        format!(
                            "Additional properties are not allowed ({} {verb} unexpected)",
                            quoted.join(", ")
                        ),
                    );
                }
            } else {
                for name in extra {
                    self.field(name, additional, &object[name], depth);
                    if self.done() {
                        return;
                    }
                }
            }
        }
        if let Some(Value::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !object.contains_key(name) {
                    self.fail(format!("\"{name}\" is a required property"));
                }
            }
        }
        let size = object.len() as u64;
        if let Some(min) = schema.get("minProperties").and_then(count)
            && size < min
        {
            self.fail(format!(
                "{} has less than {min} propert{}",
                shown(value),
                ies(min)
            ));
        }
        if let Some(max) = schema.get("maxProperties").and_then(count)
            && size > max
        {
            self.fail(format!(
                "{} has more than {max} propert{}",
                shown(value),
                ies(max)
            ));
        }
        if self.done() {
            return;
        }
        if let Some(names) = schema.get("propertyNames") {
            for name in object.keys() {
                if !self.probe(names, &Value::String(name.clone()), depth.descend()) {
                    self.fail(format!("Property name \"{name}\" is not valid"));
                }
            }
        }
        self.dependencies(schema, object, value, depth);
    }

    /// `dependentRequired`, `dependentSchemas` and draft-07's `dependencies`.
    fn dependencies(
        &mut self,
        schema: &Map<String, Value>,
        object: &Map<String, Value>,
        value: &Value,
        depth: Depth,
    ) {
        for keyword in ["dependentRequired", "dependentSchemas", "dependencies"] {
            let Some(Value::Object(rules)) = schema.get(keyword) else {
                continue;
            };
            for (present, rule) in rules {
                if !object.contains_key(present) {
                    continue;
                }
                match rule {
                    Value::Array(needed) => {
                        for name in needed.iter().filter_map(Value::as_str) {
                            if !object.contains_key(name) {
                                self.fail(format!(
                                    "\"{name}\" is a required property (because \"{present}\" is present)"
                                ));
                            }
                        }
                    }
                    rule if keyword != "dependentRequired" => {
                        self.schema(rule, value, depth.step());
                    }
                    _ => {}
                }
                if self.done() {
                    return;
                }
            }
        }
    }

    /// Checks `field`, the property `name` of the current object, against `schema`.
    fn field(&mut self, name: &str, schema: &Value, field: &Value, depth: Depth) {
        let len = self.path.len();
        push_segment(&mut self.path, name);
        self.schema(schema, field, depth.descend());
        self.path.truncate(len);
    }

    /// `allOf`, `anyOf`, `oneOf`, `not`, `if` / `then` / `else`.
    fn combinators(&mut self, schema: &Map<String, Value>, value: &Value, depth: Depth) {
        if let Some(Value::Array(all)) = schema.get("allOf") {
            for each in all {
                self.schema(each, value, depth.step());
                if self.done() {
                    return;
                }
            }
        }
        if let Some(Value::Array(any)) = schema.get("anyOf")
            && !any.iter().any(|each| self.probe(each, value, depth.step()))
        {
            self.fail(format!(
                "{} is not valid under any of the schemas listed in the 'anyOf' keyword",
                shown(value)
            ));
        }
        if let Some(Value::Array(one)) = schema.get("oneOf") {
            let passing = one
                .iter()
                .filter(|each| self.probe(each, value, depth.step()))
                .take(2)
                .count();
            match passing {
                0 => self.fail(format!(
                    "{} is not valid under any of the schemas listed in the 'oneOf' keyword",
                    shown(value)
                )),
                1 => {}
                _ => self.fail(format!(
                    "{} is valid under more than one of the schemas listed in the 'oneOf' keyword",
                    shown(value)
                )),
            }
        }
        if let Some(not) = schema.get("not")
            && self.probe(not, value, depth.step())
        {
            self.fail(format!(
                "{} is not allowed for {}",
                shown(not),
                shown(value)
            ));
        }
        if let Some(condition) = schema.get("if") {
            let branch = if self.probe(condition, value, depth.step()) {
                schema.get("then")
            } else {
                schema.get("else")
            };
            if let Some(branch) = branch {
                self.schema(branch, value, depth.step());
            }
        }
    }
}

/// Whether `value` is of the JSON Schema type `name`.
fn is_type(value: &Value, name: &str) -> bool {
    match (name, value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("number", Value::Number(_))
        | ("string", Value::String(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_)) => true,
        ("integer", Value::Number(n)) => is_integral(n),
        _ => false,
    }
}

/// `value` as a message quotes it: its JSON, cut after [`SHOWN`] characters.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn ies(n: u64) -> &'static str {
    if n == 1 { "y" } else { "ies" }
}
