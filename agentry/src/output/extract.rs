//! Finding the JSON value in a model's text: bare, in a code fence, or after some prose.

use serde::de::IgnoredAny;

/// The JSON text in `text`, or `None` when there is no candidate at all.
///
/// Tries, in order: the whole (trimmed) text; the first code fence whose content looks like
/// JSON; each `{` or `[` in the text up to its matching bracket, the first that parses
/// winning. When no candidate parses, the first one is returned so that its syntax error can
/// be reported.
///
/// ```
/// use agentry::output::extract_json;
///
/// assert_eq!(extract_json(r#" {"a": 1} "#), Some(r#"{"a": 1}"#));
/// assert_eq!(extract_json("Sure!\n```json\n[1, 2]\n```\nAnything else?"), Some("[1, 2]"));
/// assert_eq!(extract_json(r#"Here it is: {"a": "}"} — enjoy."#), Some(r#"{"a": "}"}"#));
/// assert_eq!(extract_json("no json here"), None);
/// ```
pub fn extract_json(text: &str) -> Option<&str> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return None;
    }
    if parses(trimmed) {
        return Some(trimmed);
    }
    let mut first: Option<&str> = None;
    if starts_like_json(trimmed) {
        let candidate = balanced(trimmed).unwrap_or(trimmed);
        if parses(candidate) {
            return Some(candidate);
        }
        first = Some(candidate);
    }
    for fenced in fences(text) {
        let inner = fenced.trim();
        if starts_like_json(inner) {
            let candidate = balanced(inner).unwrap_or(inner);
            if parses(candidate) {
                return Some(candidate);
            }
            first.get_or_insert(candidate);
        }
    }
    // Brackets inside an earlier candidate are part of it, not candidates of their own.
    let mut covered = 0;
    for (start, _) in text.match_indices(['{', '[']) {
        if start < covered {
            continue;
        }
        let rest = &text[start..];
        let candidate = balanced(rest).unwrap_or(rest.trim_end());
        covered = start + candidate.len();
        if parses(candidate) {
            return Some(candidate);
        }
        first.get_or_insert(candidate);
    }
    first
}

fn parses(s: &str) -> bool {
    serde_json::from_str::<IgnoredAny>(s).is_ok()
}

fn starts_like_json(s: &str) -> bool {
    s.starts_with(['{', '[', '"'])
}

/// The contents of the code fences in `text` (the info string after the opening fence is
/// skipped).
fn fences(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let open = rest.find("```")?;
        let after = &rest[open + 3..];
        let body_start = after.find('\n').map_or(after.len(), |i| i + 1);
        let body = &after[body_start..];
        match body.find("```") {
            Some(close) => {
                rest = &body[close + 3..];
                Some(&body[..close])
            }
            None => {
                rest = "";
                Some(body)
            }
        }
    })
}

/// The prefix of `s` (which starts with `{`, `[` or `"`) up to the bracket or quote that
/// closes its first character, strings and escapes respected.
fn balanced(s: &str) -> Option<&str> {
    let bytes = s.as_bytes();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
                if depth == 0 {
                    return Some(&s[..=i]);
                }
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&s[..=i]);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::extract_json;

    #[test]
    fn finds_json_in_prose_and_fences() {
        assert_eq!(extract_json("\"Comedy\""), Some("\"Comedy\""));
        assert_eq!(extract_json("```\n{\"a\":1}\n```"), Some("{\"a\":1}"));
        assert_eq!(
            extract_json("Thoughts [draft]. Final: {\"a\": [1]} done"),
            Some("{\"a\": [1]}")
        );
        // Nothing parses: the first candidate comes back for its error message, not a
        // fragment of it that happens to parse.
        assert_eq!(extract_json("{\"a\": 1,}"), Some("{\"a\": 1,}"));
        assert_eq!(
            extract_json("{\"a\": [] \"b\": 2}"),
            Some("{\"a\": [] \"b\": 2}")
        );
        assert_eq!(extract_json("   "), None);
        assert_eq!(extract_json("]]"), None);
    }
}
