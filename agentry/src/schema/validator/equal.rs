//! Equality and order of JSON values as JSON Schema defines them: `1` and `1.0` are the same
//! number (for `enum`, `const` and `uniqueItems`), and integers compare exactly.

use std::cmp::Ordering;

use serde_json::{Number, Value};

/// Whether `a` and `b` are the same JSON value.
pub(super) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => compare(a, b) == Some(Ordering::Equal),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| equal(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| equal(a, b)))
        }
        (a, b) => a == b,
    }
}

/// How two numbers compare: exactly when both are integers, as `f64` otherwise.
pub(super) fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (integer(a), integer(b)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// A number written as an integer (`7`, `-3`; not `7.0`), widened so `u64` and `i64` compare.
pub(super) fn integer(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Whether a number is an integer in JSON Schema's sense (`7` and `7.0` both are).
pub(super) fn is_integral(n: &Number) -> bool {
    integer(n).is_some()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// Whether `n` is a multiple of `by` (`by` > 0, checked when the schema compiled).
pub(super) fn is_multiple(n: &Number, by: &Number) -> bool {
    if let (Some(n), Some(by)) = (integer(n), integer(by)) {
        return by != 0 && n % by == 0;
    }
    let (Some(n), Some(by)) = (n.as_f64(), by.as_f64()) else {
        return true;
    };
    let quotient = n / by;
    if !quotient.is_finite() {
        return false;
    }
    // `0.3 / 0.1` is 2.9999999999999996: accept a quotient within rounding of an integer.
    let nearest = quotient.round();
    (quotient - nearest).abs() <= 1e-9 * nearest.abs().max(1.0)
}
