//! Whether a request matches its recording, and the diff that says how it does not.

use serde_json::Value;
use similar::TextDiff;

use super::file;
use super::scrub::path_and_query;

/// What an ignored field is shown as in a diff.
const IGNORED: &str = "<ignored>";

/// A JSON Pointer (RFC 6901) whose segments may be `*` (every element of an array, every
/// member of an object), split into its segments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pattern(Vec<String>);

impl Pattern {
    /// Parses `/a/*/b` (the leading `/` may be left out; `~1` is `/`, `~0` is `~`).
    pub(crate) fn parse(pointer: &str) -> Pattern {
        let trimmed = pointer.strip_prefix('/').unwrap_or(pointer);
        if trimmed.is_empty() {
            return Pattern(Vec::new());
        }
        Pattern(
            trimmed
                .split('/')
                .map(|s| s.replace("~1", "/").replace("~0", "~"))
                .collect(),
        )
    }

    fn apply(&self, value: &mut Value) {
        mark(value, &self.0);
    }
}

fn mark(value: &mut Value, segments: &[String]) {
    let Some((first, rest)) = segments.split_first() else {
        *value = Value::String(IGNORED.to_owned());
        return;
    };
    match value {
        Value::Object(map) if first == "*" => map.values_mut().for_each(|v| mark(v, rest)),
        Value::Array(items) if first == "*" => items.iter_mut().for_each(|v| mark(v, rest)),
        Value::Object(map) => {
            if let Some(v) = map.get_mut(first.as_str()) {
                mark(v, rest);
            }
        }
        Value::Array(items) => {
            if let Some(v) = first.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                mark(v, rest);
            }
        }
        _ => {}
    }
}

/// A request body as a cassette keeps it: JSON when it parses, else its text.
pub(crate) fn body_value(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()))
}

/// `None` when the sent request matches the recorded one once the `ignored` fields are
/// blanked out in both; otherwise a unified diff of the two (method, path and query on the
/// first line, then the body as pretty JSON).
pub(crate) fn compare(
    recorded: &file::Request,
    method: &str,
    url: &str,
    body: &Value,
    ignored: &[Pattern],
) -> Option<String> {
    let normalize = |body: &Value| {
        let mut body = body.clone();
        ignored.iter().for_each(|p| p.apply(&mut body));
        body
    };
    let (old_body, new_body) = (normalize(&recorded.body), normalize(body));
    let (old_target, new_target) = (path_and_query(&recorded.url), path_and_query(url));
    if recorded.method == method && old_target == new_target && old_body == new_body {
        return None;
    }
    let text = |method: &str, target: &str, body: &Value| {
        let pretty = serde_json::to_string_pretty(body).unwrap_or_default();
        format!("{method} {target}\n{pretty}\n")
    };
    let old = text(&recorded.method, old_target, &old_body);
    let new = text(method, new_target, &new_body);
    Some(
        TextDiff::from_lines(&old, &new)
            .unified_diff()
            .context_radius(3)
            .header("recorded", "sent")
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn wildcards_reach_every_element() {
        let mut v = json!({"messages": [{"id": 1, "text": "a"}, {"id": 2, "text": "b"}], "n": 3});
        Pattern::parse("/messages/*/id").apply(&mut v);
        Pattern::parse("missing/field").apply(&mut v);
        assert_eq!(
            v,
            json!({"messages": [{"id": "<ignored>", "text": "a"}, {"id": "<ignored>", "text": "b"}], "n": 3})
        );
        let mut v = json!({"a/b": {"~": 1}});
        Pattern::parse("/a~1b/~0").apply(&mut v);
        assert_eq!(v, json!({"a/b": {"~": "<ignored>"}}));
    }

    #[test]
    fn equal_requests_have_no_diff_and_hosts_do_not_count() {
        let recorded = file::Request {
            method: "POST".into(),
            url: "http://127.0.0.1:4000/v1/x?alt=sse".into(),
            headers: Default::default(),
            body: json!({"a": 1}),
        };
        let same = compare(
            &recorded,
            "POST",
            "https://api.example.com/v1/x?alt=sse",
            &json!({"a": 1}),
            &[],
        );
        assert_eq!(same, None);
        let diff = compare(
            &recorded,
            "POST",
            "http://h/v1/x?alt=sse",
            &json!({"a": 2}),
            &[],
        );
        assert!(diff.unwrap().contains("-  \"a\": 1\n+  \"a\": 2\n"));
    }
}
