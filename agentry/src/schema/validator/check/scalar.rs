//! The keywords of numbers and strings.

use std::cmp::Ordering;

use serde_json::{Number, Value};

use super::super::equal::{compare, is_multiple};
use super::super::node::Rules;
use super::{Run, plural, shown};

impl Run<'_> {
    pub(super) fn number(&mut self, rules: &Rules, n: &Number) {
        let bounds = [
            (rules.minimum.as_ref(), Ordering::Less),
            (rules.maximum.as_ref(), Ordering::Greater),
        ];
        for (bound, side) in bounds {
            if let Some((limit, exclusive)) = bound {
                self.bound(n, limit, *exclusive, side);
            }
        }
        let exclusive = [
            (rules.exclusive_minimum.as_ref(), Ordering::Less),
            (rules.exclusive_maximum.as_ref(), Ordering::Greater),
        ];
        for (limit, side) in exclusive {
            if let Some(limit) = limit {
                self.bound(n, limit, true, side);
            }
        }
        if let Some(by) = &rules.multiple_of
            && !is_multiple(n, by)
        {
            self.fail(format!("{n} is not a multiple of {by}"));
        }
    }

    /// `n` against one bound: below a minimum (`side` is `Less`) or above a maximum
    /// (`Greater`), or on it when the bound is exclusive.
    fn bound(&mut self, n: &Number, limit: &Number, exclusive: bool, side: Ordering) {
        let order = compare(n, limit);
        if order == Some(side) || (exclusive && order == Some(Ordering::Equal)) {
            let (beyond, bound) = match side {
                Ordering::Less => ("less than", "minimum"),
                _ => ("greater than", "maximum"),
            };
            let or_equal = if exclusive { " or equal to" } else { "" };
            self.fail(format!("{n} is {beyond}{or_equal} the {bound} of {limit}"));
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
