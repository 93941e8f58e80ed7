//! Bad input is an error, never a panic: malformed schemas, reference cycles and deep nesting,
//! random schemas, and external schemas over the caps.

use super::*;

#[test]
fn malformed_schemas_are_errors() {
    // (schema, whether the pass-through dialects refuse it too: they check the root,
    // references and the shape of subschemas, and leave the rest to the provider)
    let bad = [
        (json!(null), true),
        (json!(true), true),
        (json!(42), true),
        (json!([]), true),
        (json!({}), true),
        (json!({ "type": 7 }), true),
        (json!({ "type": "object", "properties": [] }), true),
        (json!({ "type": "object", "properties": { "a": 1 } }), true),
        (
            json!({ "type": "object", "properties": { "a": { "type": "strin" } } }),
            false,
        ),
        (
            json!({ "type": "object", "properties": { "a": { "$ref": 3 } } }),
            true,
        ),
        (
            json!({ "type": "object", "properties": { "a": { "anyOf": {} } } }),
            true,
        ),
        (
            json!({ "type": "object", "properties": { "a": { "items": [1] } } }),
            true,
        ),
        (
            json!({ "type": "object", "properties": {}, "required": ["ghost"] }),
            false,
        ),
        (
            json!({ "type": "object", "properties": {}, "required": "ghost" }),
            false,
        ),
        (json!({ "type": "object", "$defs": 5 }), true),
    ];
    for dialect in Dialect::ALL {
        let checks_everything = matches!(dialect, Dialect::OpenAiStrict | Dialect::Gemini);
        for (schema, refused_by_all) in &bad {
            let result = lower(schema, dialect);
            if checks_everything || *refused_by_all {
                let err = result.expect_err(&format!("{dialect} must refuse {schema}"));
                assert!(!err.reason.is_empty());
            }
        }
        // Dangling and external references are refused everywhere.
        for reference in ["#/$defs/Missing", "other.json#/x"] {
            let schema = json!({ "type": "object", "properties": { "a": { "$ref": reference } } });
            let err = lower(&schema, dialect).unwrap_err();
            assert_eq!(err.path, "/properties/a/$ref", "{dialect}");
        }
    }
}

#[test]
fn reference_cycles_and_deep_nesting_terminate() {
    let cycle = json!({
        "type": "object",
        "properties": { "a": { "$ref": "#/$defs/A" }, "b": { "allOf": [{ "$ref": "#/$defs/A" }], "type": "object" } },
        "$defs": { "A": { "$ref": "#/$defs/B" }, "B": { "$ref": "#/$defs/A" } }
    });
    for dialect in Dialect::ALL {
        let _ = lower(&cycle, dialect);
    }
    assert!(lower(&cycle, Dialect::Gemini).is_err());
    assert!(lower(&cycle, Dialect::OpenAiStrict).is_err());

    let mut deep = json!({ "type": "string" });
    for _ in 0..1000 {
        deep = json!({ "type": "array", "items": deep });
    }
    let root = json!({ "type": "object", "properties": { "deep": deep } });
    for dialect in Dialect::ALL {
        let err = lower(&root, dialect).unwrap_err();
        assert!(err.reason.contains("deeper"), "{dialect}: {err}");
    }
}

/// Lowers many pseudo-random schema-like values (a fixed-seed generator, so failures
/// reproduce) in every dialect: each must return, with `Ok` or `Err`, and never panic.
#[test]
fn random_schemas_never_panic() {
    let mut rng = Lcg(0x5eed);
    for _ in 0..3000 {
        let mut schema = random_schema(&mut rng, 0);
        if rng.below(3) > 0
            && let Value::Object(map) = &mut schema
        {
            map.insert("type".into(), json!("object"));
            if rng.below(2) == 0 {
                map.insert(
                    "$defs".into(),
                    json!({ "A": random_schema(&mut rng, 2), "B": random_schema(&mut rng, 2) }),
                );
            }
        }
        for dialect in Dialect::ALL {
            if let Ok(lowered) = lower(&schema, dialect) {
                assert_eq!(lowered["type"], "object", "{dialect}: {schema}");
            }
        }
    }
}

struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

fn random_schema(rng: &mut Lcg, depth: u32) -> Value {
    const KEYWORDS: [&str; 24] = [
        "type",
        "properties",
        "required",
        "items",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "enum",
        "const",
        "additionalProperties",
        "description",
        "format",
        "minimum",
        "minLength",
        "uniqueItems",
        "prefixItems",
        "default",
        "title",
        "not",
        "nullable",
        "$defs",
        "x-extra",
        "pattern",
    ];
    if depth > 4 || rng.below(6) == 0 {
        return [
            json!(true),
            json!(false),
            json!({}),
            json!(null),
            json!(1),
            json!("x"),
        ][rng.below(6) as usize]
            .clone();
    }
    let mut map = serde_json::Map::new();
    for _ in 0..rng.below(5) {
        let key = KEYWORDS[rng.below(KEYWORDS.len() as u64) as usize];
        let value = match key {
            "type" => [
                json!("object"),
                json!("string"),
                json!(["integer", "null"]),
                json!("null"),
                json!(["string", "object"]),
                json!(3),
            ][rng.below(6) as usize]
                .clone(),
            "properties" | "$defs" => {
                let mut props = serde_json::Map::new();
                for name in ["a", "b", "A", "B"].iter().take(rng.below(4) as usize) {
                    props.insert(name.to_string(), random_schema(rng, depth + 1));
                }
                Value::Object(props)
            }
            "required" => [json!(["a"]), json!(["a", "b"]), json!("a"), json!([1])]
                [rng.below(4) as usize]
                .clone(),
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                let n = rng.below(4);
                Value::Array((0..n).map(|_| random_schema(rng, depth + 1)).collect())
            }
            "$ref" => [
                json!("#"),
                json!("#/$defs/A"),
                json!("#/$defs/B"),
                json!("#/$defs/C"),
                json!("#/properties/a"),
                json!(5),
            ][rng.below(6) as usize]
                .clone(),
            "enum" => [json!(["a", "b"]), json!([1, null]), json!("a"), json!([])]
                [rng.below(4) as usize]
                .clone(),
            "const" => [json!("a"), json!(1), json!(null)][rng.below(3) as usize].clone(),
            "format" => {
                [json!("date-time"), json!("uint8"), json!(1)][rng.below(3) as usize].clone()
            }
            _ => random_schema(rng, depth + 1),
        };
        map.insert(key.to_string(), value);
    }
    Value::Object(map)
}

/// Schemas from outside the program (dynamic tools) are capped in every dialect: node count,
/// depth and total size, each refused with an error naming the cap (issue 10, item 3).
#[test]
fn external_schemas_are_capped_in_every_dialect() {
    let mut properties = serde_json::Map::new();
    for i in 0..100_000 {
        properties.insert(format!("p{i}"), json!({ "type": "string" }));
    }
    let wide = json!({ "type": "object", "properties": properties });
    let big = json!({
        "type": "object",
        "properties": { "a": { "type": "string", "description": "x".repeat(2 << 20) } }
    });
    let mut deep = json!({ "type": "object" });
    for _ in 0..70 {
        deep = json!({ "type": "object", "properties": { "a": deep } });
    }
    for dialect in Dialect::ALL {
        let err = lower(&wide, dialect).expect_err(&format!("{dialect}: 100,000 properties"));
        assert!(err.reason.contains("node count"), "{dialect}: {err}");
        let err = lower(&big, dialect).expect_err(&format!("{dialect}: 2 MiB of text"));
        assert!(err.reason.contains("schema size"), "{dialect}: {err}");
        let err = lower(&deep, dialect).expect_err(&format!("{dialect}: 140 levels"));
        assert!(err.reason.contains("deeper"), "{dialect}: {err}");
    }
}
