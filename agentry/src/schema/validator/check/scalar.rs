//! The keywords of numbers and strings.

use std::cmp::Ordering;

use serde_json::{Number, Value};

use super::super::equal::{compare, is_multiple};
use super::super::node::Rules;
use super::{Run, plural, shown};

impl Run<'_> {
    pub(super) fn number(&mut self, rules: &Rules, n: &Number) {
        if let Some((limit, exclusive)) = &rules.minimum {
            match compare(n, limit) {
                Some(Ordering::Less) => {
                    self.fail(format!("{n} is less than the minimum of {limit}"));
                }
                Some(Ordering::Equal) if *exclusive => {
                    self.fail(format!(
                        "{n} is less than or equal to the minimum of {limit}"
                    ));
                }
                _ => {}
            }
        }
        if let Some((limit, exclusive)) = &rules.maximum {
            match compare(n, limit) {
                Some(Ordering::Greater) => {
                    self.fail(format!("{n} is greater than the maximum of {limit}"));
                }
                Some(Ordering::Equal) if *exclusive => {
                    self.fail(format!(
                        "{n} is greater than or equal to the maximum of {limit}"
                    ));
                }
                _ => {}
            }
        }
        if let Some(limit) = &rules.exclusive_minimum
            && compare(n, limit).is_some_and(Ordering::is_le)
        {
            self.fail(format!(
                "{n} is less than or equal to the minimum of {limit}"
            ));
        }
        if let Some(limit) = &rules.exclusive_maximum
            && compare(n, limit).is_some_and(Ordering::is_ge)
        {
            self.fail(format!(
                "{n} is greater than or equal to the maximum of {limit}"
            ));
        }
        if let Some(by) = &rules.multiple_of
            && !is_multiple(n, by)
        {
            self.fail(format!("{n} is not a multiple of {by}"));
        }
    }

    pub(super) fn string(&mut self, rules: &Rules, text: &str, value: &Value) {
        if rules.min_length.is_some() || rules.max_length.is_some() {
            let length = text.chars().count() as u64;
            if let Some(min) = rules.min_length
                && length < min
            {
                self.fail(format!(
                    "{} is shorter than {min} character{}",
                    shown(value),
                    plural(min)
                ));
            }
            if let Some(max) = rules.max_length
                && length > max
            {
                self.fail(format!(
                    "{} is longer than {max} character{}",
                    shown(value),
                    plural(max)
                ));
            }
        }
        if let Some((pattern, regex)) = &rules.pattern
            && !regex.is_match(text)
        {
            self.fail(format!("{} does not match \"{pattern}\"", shown(value)));
        }
    }
}
