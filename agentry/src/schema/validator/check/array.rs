//! The keywords of arrays.

use std::fmt::Write;

use serde_json::Value;

use super::super::equal::equal;
use super::super::node::Rules;
use super::{Depth, Run, plural, shown};

impl Run<'_> {
    pub(super) fn array(&mut self, rules: &Rules, items: &[Value], value: &Value, depth: Depth) {
        self.size(
            value,
            items.len(),
            rules.min_items,
            rules.max_items,
            ("item", "items"),
        );
        if rules.unique_items
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
        // Each element answers to its position's schema in the prefix, then to `items`.
        for (i, item) in items.iter().enumerate() {
            let Some(each) = rules.prefix_items.get(i).copied().or(rules.items) else {
                continue;
            };
            if self.first_only {
                // Only whether it passes is asked: no path to keep.
                self.schema(each, item, depth.descend());
            } else {
                let at = self.path.len();
                let _ = write!(self.path, "/{i}");
                self.schema(each, item, depth.descend());
                self.path.truncate(at);
            }
            if self.done() {
                return;
            }
        }
        if let Some(contains) = rules.contains {
            let matches = items
                .iter()
                .filter(|item| self.probe(contains, item, depth.descend()))
                .count() as u64;
            let min = rules.min_contains.unwrap_or(1);
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
            if let Some(max) = rules.max_contains
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
