//! Numbers and literals (`true`, `false`, `null`) as [`PartialJson`](super::PartialJson)
//! completes them: the JSON number grammar, and the value serde_json would read.

use serde_json::{Number, Value};

/// A complete number or literal, as serde_json reads it.
pub(super) fn scalar(token: &str) -> Option<Value> {
    match token {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "null" => return Some(Value::Null),
        _ => {}
    }
    if !is_number(token) {
        return None;
    }
    if !token.contains(['.', 'e', 'E']) {
        if let Ok(n) = token.parse::<u64>() {
            return Some(Value::Number(n.into()));
        }
        // `-0` is not the integer 0 for serde_json but the float -0.0 (found by fuzzing).
        if let Ok(n) = token.parse::<i64>()
            && n != 0
        {
            return Some(Value::Number(n.into()));
        }
    }
    token
        .parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map(Value::Number)
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
fn is_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}
