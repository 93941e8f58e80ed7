//! The rules each dialect must keep, checked on every lowered schema (so a wrong snapshot cannot
//! be blessed silently).

use super::*;

pub(super) fn check_rules(dialect: Dialect, case: &str, canonical: &Value, schema: &Value) {
    assert_eq!(
        schema["type"], "object",
        "{dialect} {case}: the root is an object"
    );
    assert!(
        find_key(schema, "$schema").is_none(),
        "{dialect} {case}: $schema"
    );
    match dialect {
        Dialect::OpenAiStrict => check_strict(case, schema),
        Dialect::Gemini => check_gemini(case, schema),
        // The non-strict dialects send the canonical schema unchanged, but for boolean
        // subschemas, written in object form.
        Dialect::OpenAi | Dialect::Anthropic if case == "json_value_field" => {
            assert_eq!(schema["properties"]["value"], json!({}));
            assert_eq!(canonical["properties"]["value"], json!(true));
            assert_eq!(
                schema["properties"]["path"],
                canonical["properties"]["path"]
            );
        }
        Dialect::OpenAi | Dialect::Anthropic => assert_eq!(schema, canonical, "{dialect} {case}"),
    }
}

fn check_strict(case: &str, schema: &Value) {
    for_each_schema(schema, &mut |node, path| {
        let Some(map) = node.as_object() else {
            panic!("{case}: boolean schema at {path}");
        };
        if map.contains_key("$ref") {
            assert_eq!(
                map.len(),
                1,
                "{case}: keywords beside $ref at {path}: {node}"
            );
        }
        for banned in [
            "oneOf",
            "allOf",
            "title",
            "default",
            "minLength",
            "uniqueItems",
        ] {
            assert!(!map.contains_key(banned), "{case}: {banned} at {path}");
        }
        let is_object = map.get("type").is_some_and(|t| {
            t == "object" || t.as_array().is_some_and(|a| a.contains(&json!("object")))
        });
        if is_object {
            assert_eq!(
                map["additionalProperties"], false,
                "{case}: closed object at {path}"
            );
            let names: Vec<&String> = map["properties"].as_object().unwrap().keys().collect();
            let required: Vec<&str> = map["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            assert_eq!(names, required, "{case}: every property required at {path}");
        }
    });
}

fn check_gemini(case: &str, schema: &Value) {
    for keyword in [
        "$ref",
        "$defs",
        "additionalProperties",
        "const",
        "oneOf",
        "allOf",
        "title",
    ] {
        assert!(
            find_key(schema, keyword).is_none(),
            "gemini {case}: {keyword} present"
        );
    }
    for_each_schema(schema, &mut |node, path| {
        let map = node
            .as_object()
            .unwrap_or_else(|| panic!("{case}: boolean at {path}"));
        assert!(
            map.get("type").is_some_and(Value::is_string) || map.contains_key("anyOf"),
            "gemini {case}: one type (a string) or anyOf at {path}: {node}"
        );
        if let Some(values) = map.get("enum") {
            assert!(
                values.as_array().unwrap().iter().all(Value::is_string),
                "{case} {path}"
            );
        }
    });
}

/// Calls `f` on every subschema reachable through `properties`, `items`, `anyOf` and `$defs`.
fn for_each_schema(schema: &Value, f: &mut dyn FnMut(&Value, &str)) {
    fn walk(node: &Value, path: &mut String, f: &mut dyn FnMut(&Value, &str)) {
        f(node, path);
        let Some(map) = node.as_object() else { return };
        let len = path.len();
        for key in ["properties", "$defs"] {
            if let Some(Value::Object(children)) = map.get(key) {
                for (name, child) in children {
                    path.push_str(&format!("/{key}/{name}"));
                    walk(child, path, f);
                    path.truncate(len);
                }
            }
        }
        if let Some(items) = map.get("items") {
            path.push_str("/items");
            walk(items, path, f);
            path.truncate(len);
        }
        if let Some(Value::Array(alternatives)) = map.get("anyOf") {
            for (i, alternative) in alternatives.iter().enumerate() {
                path.push_str(&format!("/anyOf/{i}"));
                walk(alternative, path, f);
                path.truncate(len);
            }
        }
    }
    walk(schema, &mut String::new(), f);
}

fn find_key<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => map
            .get(key)
            .or_else(|| map.values().find_map(|v| find_key(v, key))),
        Value::Array(items) => items.iter().find_map(|v| find_key(v, key)),
        _ => None,
    }
}
