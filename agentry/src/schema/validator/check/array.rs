//! The keywords of arrays.

use serde_json::{Map, Value};

use super::super::compile::count;
use super::super::equal::equal;
use super::{Depth, Run, plural, shown};

impl Run<'_> {
    pub(super) fn array(
        &mut self,
        schema: &Map<String, Value>,
        items: &[Value],
        value: &Value,
        depth: Depth,
    ) {
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
}
