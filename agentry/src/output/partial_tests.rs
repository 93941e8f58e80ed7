//! Tests of [`PartialJson`](super::PartialJson).

use super::*;
use serde_json::json;

fn chunked(text: &str, size: usize) -> Result<Value, PartialError> {
    let mut p = PartialJson::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        p.push(&text[start..end])?;
        start = end;
    }
    p.finish()
}

#[test]
fn agrees_with_serde_json_at_every_chunk_size() {
    let text = r#" {"a": [1, -2.5e3, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00y"],
        "nested": {"empty": {}, "list": [[], [{}], "é😀"]}, "big": 18446744073709551615,
        "neg": -9223372036854775808, "f": 0.1, "z": 0} "#;
    let expected: Value = serde_json::from_str(text).unwrap();
    for size in [1, 2, 3, 5, 7, 64, text.len()] {
        assert_eq!(chunked(text, size).unwrap(), expected, "chunk size {size}");
    }
}

#[test]
fn negative_zero_is_a_float_as_serde_json_reads_it() {
    // Found by the `partial_json` fuzz target: `-0` was read as the integer 0.
    for text in ["-0", "[-0]", "{\"a\":-0}", "-0 "] {
        let expected: Value = serde_json::from_str(text).unwrap();
        assert_eq!(chunked(text, 1).unwrap(), expected, "{text}");
        let mut p = PartialJson::new();
        p.push(text).unwrap();
        let got = p.finish().unwrap();
        assert_eq!(got, expected, "{text}");
        assert_eq!(got.to_string(), expected.to_string(), "{text}");
    }
}

#[test]
fn partial_values_grow() {
    let mut p = PartialJson::new();
    assert!(!p.push("[{\"na").unwrap() || p.value() == Some(&json!([{}])));
    assert_eq!(p.value(), Some(&json!([{}])));
    p.push("me\": \"Al").unwrap();
    assert_eq!(p.value(), Some(&json!([{"name": "Al"}])));
    p.push("ice\", \"age\": 3").unwrap();
    assert_eq!(p.value(), Some(&json!([{"name": "Alice"}])));
    p.push("0}, 7").unwrap();
    assert_eq!(p.value(), Some(&json!([{"name": "Alice", "age": 30}])));
    assert!(!p.is_complete());
    p.push("]").unwrap();
    assert!(p.is_complete());
    assert_eq!(
        p.finish().unwrap(),
        json!([{"name": "Alice", "age": 30}, 7])
    );
}

#[test]
fn scalar_roots() {
    assert_eq!(chunked("\"Comedy\"", 2).unwrap(), json!("Comedy"));
    assert_eq!(chunked(" 42 ", 1).unwrap(), json!(42));
    assert_eq!(chunked("42", 1).unwrap(), json!(42));
    assert_eq!(chunked("true", 3).unwrap(), json!(true));
}

#[test]
fn rejects_what_serde_json_rejects() {
    for bad in [
        "{\"a\" 1}",
        "[1,]x",
        "{,}",
        "[01]",
        "[1.]",
        "[-]",
        "[tru]",
        "{\"a\":1]",
        "[\"\u{1}\"]",
        "[\"\\x\"]",
        "[\"\\ud800\"]",
        "[\"\\udc00\"]",
        "{\"a\":1} x",
        "[1 2]",
        "",
    ] {
        assert!(serde_json::from_str::<Value>(bad).is_err(), "{bad:?}");
        assert!(chunked(bad, 1).is_err(), "{bad:?} should fail");
    }
}

#[test]
fn whole_vouches_only_for_a_text_that_is_one_object_or_array() {
    let whole = |parser: fn() -> PartialJson, text: &str| {
        let mut p = parser();
        for piece in text.as_bytes().chunks(3) {
            if p.push(std::str::from_utf8(piece).unwrap()).is_err() {
                return None;
            }
        }
        p.whole().cloned()
    };
    for parser in [
        PartialJson::new as fn() -> PartialJson,
        PartialJson::skipping_prose,
    ] {
        for text in [r#"{"a": [1, {"b": "c"}]}"#, " \n[1, 2] \n", "{}"] {
            let expected: Value = serde_json::from_str(text.trim()).unwrap();
            assert_eq!(whole(parser, text), Some(expected), "{text:?}");
        }
        // Incomplete, a scalar root, nested past the depth vouched for.
        let deep = format!("{}{}", "[".repeat(65), "]".repeat(65));
        for text in [r#"{"a": 1"#, "42", r#""text""#, deep.as_str()] {
            assert_eq!(whole(parser, text), None, "{text:?}");
        }
    }
    // Prose before or after the value.
    for text in ["Sure: {\"a\": 1}", "{\"a\": 1}\nDone.", "```json\n[1]\n```"] {
        assert!(
            whole(PartialJson::skipping_prose, text).is_none(),
            "{text:?}"
        );
    }
    let deep = format!("{}{}", "[".repeat(64), "]".repeat(64));
    assert!(whole(PartialJson::new, &deep).is_some());
}

#[test]
fn skips_prose_and_fences() {
    let mut p = PartialJson::skipping_prose();
    p.push("Sure! Here it is:\n```json\n{\"a\"").unwrap();
    p.push(": [1]}\n```\nAnything else?").unwrap();
    assert_eq!(p.finish().unwrap(), json!({"a": [1]}));
}
