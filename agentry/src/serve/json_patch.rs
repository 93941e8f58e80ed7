//! The JSON Patch (RFC 6902) from one JSON value to another: AG-UI's `STATE_DELTA`.

use serde_json::{Value, json};

/// The operations that turn `from` into `to`: objects are compared key by key, anything else
/// that differs (arrays included) is replaced whole.
pub(crate) fn diff(from: &Value, to: &Value) -> Vec<Value> {
    let mut ops = Vec::new();
    walk(from, to, &mut String::new(), &mut ops);
    ops
}

fn walk(from: &Value, to: &Value, path: &mut String, ops: &mut Vec<Value>) {
    match (from, to) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, old) in a {
                let len = path.len();
                push_token(path, key);
                match b.get(key) {
                    Some(new) => walk(old, new, path, ops),
                    None => ops.push(json!({ "op": "remove", "path": path.as_str() })),
                }
                path.truncate(len);
            }
            for (key, new) in b {
                if !a.contains_key(key) {
                    let len = path.len();
                    push_token(path, key);
                    ops.push(json!({ "op": "add", "path": path.as_str(), "value": new }));
                    path.truncate(len);
                }
            }
        }
        (a, b) if a == b => {}
        (_, b) => ops.push(json!({ "op": "replace", "path": path.as_str(), "value": b })),
    }
}

/// Appends `/key`, escaped (`~` as `~0`, `/` as `~1`).
fn push_token(path: &mut String, key: &str) {
    path.push('/');
    for c in key.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_objects_by_key_and_replaces_the_rest() {
        let from = json!({"a": 1, "b": {"c": [1], "gone": true}, "same": "x"});
        let to = json!({"a": 2, "b": {"c": [1, 2]}, "same": "x", "new/key": null});
        assert_eq!(
            diff(&from, &to),
            vec![
                json!({"op": "replace", "path": "/a", "value": 2}),
                json!({"op": "replace", "path": "/b/c", "value": [1, 2]}),
                json!({"op": "remove", "path": "/b/gone"}),
                json!({"op": "add", "path": "/new~1key", "value": null}),
            ]
        );
        assert!(diff(&from, &from).is_empty());
        assert_eq!(diff(&json!(1), &json!({})), vec![json!({"op": "replace", "path": "", "value": {}})]);
    }
}
