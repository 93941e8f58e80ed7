//! The keywords of numbers and strings.

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

use super::super::compile::count;
use super::super::equal::{compare, is_multiple};
use super::{Run, plural, shown};

impl Run<'_> {
    pub(super) fn number(&mut self, schema: &Map<String, Value>, n: &Number) {
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

    pub(super) fn string(&mut self, schema: &Map<String, Value>, text: &str, value: &Value) {
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
}
