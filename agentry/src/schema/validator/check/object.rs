//! The keywords of objects.

use serde_json::{Map, Value};

use super::super::ViolationKind;
use super::super::node::{Node, Rules};
use super::{Depth, Run};
use crate::schema::walk::push_segment;

impl Run<'_> {
    pub(super) fn object(
        &mut self,
        rules: &Rules,
        object: &Map<String, Value>,
        value: &Value,
        depth: Depth,
    ) {
        // One pass over the object: each property is checked against the schema `properties`
        // gives it, those of the patterns it matches, or else `additionalProperties`.
        let forbidden = rules
            .additional_properties
            .filter(|_| !rules.unknown_pattern)
            .map(|id| (id, matches!(self.validator.nodes[id], Node::False)));
        let mut present: u64 = 0;
        let mut unexpected: Vec<&String> = Vec::new();
        for (name, field) in object {
            let mut declared = false;
            if let Some(i) = rules.property(name) {
                declared = true;
                if i < 64 {
                    present |= 1 << i;
                }
                self.field(name, rules.properties[i].1, field, depth);
            }
            for (regex, each) in &rules.pattern_properties {
                if regex.is_match(name) {
                    declared = true;
                    self.field(name, *each, field, depth);
                }
            }
            match forbidden {
                Some((_, true)) if !declared => unexpected.push(name),
                Some((additional, false)) if !declared => {
                    self.field(name, additional, field, depth);
                }
                _ => {}
            }
            if self.done() || (self.first_only && !unexpected.is_empty()) {
                break;
            }
        }
        if !unexpected.is_empty() {
            let quoted: Vec<String> = unexpected.iter().map(|n| format!("'{n}'")).collect();
            let verb = if unexpected.len() == 1 { "was" } else { "were" };
            self.fail_as(
                ViolationKind::AdditionalProperties {
                    unexpected: unexpected.iter().map(|n| n.to_string()).collect(),
                },
                format!(
                    "Additional properties are not allowed ({} {verb} unexpected)",
                    quoted.join(", ")
                ),
            );
        }
        if self.done() {
            return;
        }
        for (name, index) in rules.required.iter().zip(&rules.required_index) {
            let found = match index {
                Some(i) if *i < 64 => present & (1 << i) != 0,
                _ => object.contains_key(name),
            };
            if !found {
                self.fail(format!("\"{name}\" is a required property"));
            }
        }
        self.size(
            value,
            object.len(),
            rules.min_properties,
            rules.max_properties,
            ("property", "properties"),
        );
        if self.done() {
            return;
        }
        if let Some(names) = rules.property_names {
            for name in object.keys() {
                if !self.probe(names, &Value::String(name.clone()), depth.descend()) {
                    self.fail(format!("Property name \"{name}\" is not valid"));
                }
            }
        }
        self.dependencies(rules, object, value, depth);
    }

    /// `dependentRequired`, `dependentSchemas` and draft-07's `dependencies`.
    fn dependencies(
        &mut self,
        rules: &Rules,
        object: &Map<String, Value>,
        value: &Value,
        depth: Depth,
    ) {
        for (present, needed) in &rules.dependent_required {
            if !object.contains_key(present) {
                continue;
            }
            for name in needed {
                if !object.contains_key(name) {
                    self.fail(format!(
                        "\"{name}\" is a required property (because \"{present}\" is present)"
                    ));
                }
            }
        }
        for (present, each) in &rules.dependent_schemas {
            if object.contains_key(present) {
                self.schema(*each, value, depth.step());
                if self.done() {
                    return;
                }
            }
        }
    }

    /// Checks `field`, the property `name` of the current object, against the node `id`.
    fn field(&mut self, name: &str, id: usize, field: &Value, depth: Depth) {
        if self.first_only {
            // Only whether it passes is asked: no path to keep.
            self.schema(id, field, depth.descend());
            return;
        }
        let at = self.path.len();
        push_segment(&mut self.path, name);
        self.schema(id, field, depth.descend());
        self.path.truncate(at);
    }
}
