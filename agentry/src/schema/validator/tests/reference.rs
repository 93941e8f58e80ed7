//! The validator against the `jsonschema` crate, the reference it replaced.

use serde_json::{Value, json};

use super::super::Validator;

/// The validator accepts exactly what the `jsonschema` crate (the reference this validator
/// replaced) accepts, over schemas generated from Rust types and hand-written ones, each with
/// values that pass and values that break one rule; and the first violation is one that crate
/// reports too, at the same path.
#[test]
fn agrees_with_the_jsonschema_crate() {
    let mut cases: Vec<(Value, Vec<Value>)> = reference_cases();
    for (schema, values) in generated_cases() {
        cases.push((schema, values));
    }
    // Every value again with each of its parts replaced by a value of each JSON type.
    for (_, values) in &mut cases {
        let mutated: Vec<Value> = values.iter().flat_map(mutations).collect();
        values.extend(mutated);
    }
    let mut compared = 0;
    for (schema, values) in &cases {
        let ours = Validator::new(schema).unwrap();
        let reference = jsonschema::validator_for(schema).unwrap();
        for value in values {
            compared += 1;
            assert_eq!(
                ours.is_valid(value),
                reference.is_valid(value),
                "{value} under {schema}: {:?}",
                ours.violations(value)
            );
            if let Some(v) = ours.violations(value).first() {
                let paths: Vec<String> = reference
                    .iter_errors(value)
                    .map(|e| e.instance_path().as_str().to_string())
                    .collect();
                assert!(
                    paths.contains(&v.instance_path),
                    "{value} under {schema}: ours at {:?}, the crate's at {paths:?}",
                    v.instance_path
                );
            }
        }
    }
    assert!(compared > 1000, "{compared}");
}

/// `value` with each of its parts (and itself) replaced by a value of each JSON type.
fn mutations(value: &Value) -> Vec<Value> {
    fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    pointers(
                        child,
                        format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")),
                        out,
                    );
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    pointers(child, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
        out.push(at);
    }
    let mut at = Vec::new();
    pointers(value, String::new(), &mut at);
    let kinds = [
        json!(null),
        json!(true),
        json!(0),
        json!(-2.5),
        json!("ab"),
        json!([1]),
        json!({ "a": 1 }),
    ];
    let mut out = Vec::new();
    for pointer in at {
        for kind in &kinds {
            let mut changed = value.clone();
            *changed.pointer_mut(&pointer).unwrap() = kind.clone();
            out.push(changed);
        }
    }
    out
}

fn reference_cases() -> Vec<(Value, Vec<Value>)> {
    vec![
        (
            json!({ "type": "object", "properties": { "a": { "type": "integer", "minimum": 0, "maximum": 10 } }, "required": ["a"], "additionalProperties": false }),
            vec![
                json!({ "a": 3 }),
                json!({ "a": -1 }),
                json!({ "a": 11 }),
                json!({ "a": 2.5 }),
                json!({}),
                json!({ "a": 1, "b": 2 }),
                json!([]),
                json!(null),
            ],
        ),
        (
            json!({ "type": "array", "items": { "type": "string", "minLength": 2, "pattern": "^[a-z]+$" }, "minItems": 1, "maxItems": 3, "uniqueItems": true }),
            vec![
                json!(["ab"]),
                json!([]),
                json!(["ab", "ab"]),
                json!(["a"]),
                json!(["AB"]),
                json!(["ab", "cd", "ef", "gh"]),
                json!("ab"),
            ],
        ),
        (
            json!({ "oneOf": [{ "type": "string" }, { "type": "integer" }, { "type": "number", "multipleOf": 0.5 }] }),
            vec![
                json!("x"),
                json!(3),
                json!(1.5),
                json!(1.25),
                json!(null),
                json!([1]),
            ],
        ),
        (
            json!({ "anyOf": [{ "required": ["a"] }, { "required": ["b"] }], "not": { "required": ["c"] } }),
            vec![
                json!({ "a": 1 }),
                json!({ "b": 1 }),
                json!({}),
                json!({ "a": 1, "c": 1 }),
                json!(5),
            ],
        ),
        (
            json!({ "$defs": { "node": { "type": "object", "properties": { "value": { "type": "number" }, "next": { "anyOf": [{ "$ref": "#/$defs/node" }, { "type": "null" }] } }, "required": ["value", "next"] } }, "$ref": "#/$defs/node" }),
            vec![
                json!({ "value": 1, "next": null }),
                json!({ "value": 1, "next": { "value": 2, "next": null } }),
                json!({ "value": 1, "next": { "value": "2", "next": null } }),
                json!({ "value": 1 }),
            ],
        ),
        (
            json!({ "prefixItems": [{ "type": "integer" }, { "type": "string" }], "items": false, "contains": { "type": "string" } }),
            vec![
                json!([1, "a"]),
                json!([1]),
                json!([1, 2]),
                json!([1, "a", 3]),
                json!(["a"]),
            ],
        ),
        (
            json!({ "type": "object", "patternProperties": { "^n_": { "type": "number" } }, "additionalProperties": { "type": "string" }, "minProperties": 1, "maxProperties": 2, "propertyNames": { "pattern": "^[a-z_]+$" } }),
            vec![
                json!({ "n_a": 1 }),
                json!({ "n_a": "x" }),
                json!({ "s": "x" }),
                json!({ "s": 1 }),
                json!({}),
                json!({ "a": "1", "b": "2", "c": "3" }),
                json!({ "A": "x" }),
            ],
        ),
        (
            json!({ "if": { "properties": { "t": { "const": "a" } } }, "then": { "required": ["x"] }, "else": { "required": ["y"] }, "dependentRequired": { "p": ["q"] } }),
            vec![
                json!({ "t": "a", "x": 1 }),
                json!({ "t": "a" }),
                json!({ "t": "b", "y": 1 }),
                json!({ "t": "b" }),
                json!({ "t": "a", "x": 1, "p": 1 }),
                json!({ "t": "a", "x": 1, "p": 1, "q": 1 }),
            ],
        ),
        (
            json!({ "enum": ["red", 1, null, { "a": [1, 2] }], "const": { "a": [1, 2] } }),
            vec![
                json!({ "a": [1, 2] }),
                json!({ "a": [1.0, 2] }),
                json!("red"),
                json!({ "a": [2, 1] }),
            ],
        ),
        (
            json!({ "type": ["integer", "null"], "exclusiveMinimum": 0, "exclusiveMaximum": 100 }),
            vec![
                json!(null),
                json!(1),
                json!(0),
                json!(100),
                json!(99.0),
                json!("1"),
            ],
        ),
        (
            json!({ "type": "string", "maxLength": 3 }),
            vec![json!("日本語"), json!("日本語だ"), json!("")],
        ),
    ]
}

/// Schemas as `schemars` generates them for the SDK's tools and outputs, with generated
/// values and a broken variant of each.
fn generated_cases() -> Vec<(Value, Vec<Value>)> {
    use schemars::{JsonSchema, schema_for};
    use serde::Deserialize;

    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Trip {
        city: String,
        nights: u32,
        budget: Option<f64>,
        stops: Vec<Stop>,
        mode: Mode,
    }
    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    struct Pair {
        pair: (u8, bool),
        tags: std::collections::BTreeMap<String, i32>,
    }
    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Stop {
        name: String,
        #[schemars(range(min = 1, max = 5))]
        rating: u8,
        next: Option<Box<Stop>>,
    }
    #[allow(dead_code)]
    #[derive(Deserialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    enum Mode {
        Walk,
        Train { line: String },
        Car { seats: u8 },
    }

    let schema = serde_json::to_value(schema_for!(Trip)).unwrap();
    let good = json!({
        "city": "Lisbon", "nights": 3, "budget": null,
        "stops": [{ "name": "Belém", "rating": 5, "next": { "name": "Sintra", "rating": 4, "next": null } }],
        "mode": { "kind": "train", "line": "A1" }
    });
    let mut values = vec![good.clone()];
    let broken: [(&str, Value); 7] = [
        ("/city", json!(1)),
        ("/nights", json!(-1)),
        ("/budget", json!("much")),
        ("/stops/0/rating", json!(6)),
        ("/stops/0/next/name", json!(null)),
        ("/mode", json!({ "kind": "plane" })),
        ("/mode", json!({ "kind": "car", "seats": 300 })),
    ];
    for (pointer, replacement) in broken {
        let mut value = good.clone();
        *value.pointer_mut(pointer).unwrap() = replacement;
        values.push(value);
    }
    let mut extra = good.clone();
    extra["stops"][0]["extra"] = json!(1);
    values.push(extra);
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("nights");
    values.push(missing);

    // The closed form the provider is sent in OpenAI's strict dialect.
    let strict = crate::schema::lower(&schema, crate::Dialect::OpenAiStrict).unwrap();
    let mut strict_values = values.clone();
    let mut open = good.clone();
    open["unknown"] = json!(true);
    strict_values.push(open);
    let pair = serde_json::to_value(schema_for!(Pair)).unwrap();
    let pairs = vec![
        json!({ "pair": [255, true], "tags": { "sea": 1 } }),
        json!({ "pair": [256, true], "tags": {} }),
        json!({ "pair": [1], "tags": {} }),
        json!({ "pair": [1, true, 3], "tags": {} }),
        json!({ "pair": [1, true], "tags": { "sea": 1.5 } }),
    ];
    vec![(schema, values), (strict, strict_values), (pair, pairs)]
}
