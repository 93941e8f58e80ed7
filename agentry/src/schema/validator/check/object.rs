//! The keywords of objects.

use serde_json::{Map, Value};

use super::super::ViolationKind;
use super::super::compile::count;
use super::{Depth, Run, ies, shown};
use crate::schema::walk::push_segment;

impl Run<'_> {
    pub(super) fn object(
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
}
