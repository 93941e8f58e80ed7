use serde_json::{Value, json};

use super::{Validator, ViolationKind};

mod reference;

fn first(schema: Value, value: Value) -> (String, String) {
    let validator = Validator::new(&schema).unwrap();
    assert!(!validator.is_valid(&value), "{value} should break {schema}");
    let v = validator.violations(&value).into_iter().next().unwrap();
    (v.instance_path, v.message)
}

fn valid(schema: Value, value: Value) -> bool {
    let validator = Validator::new(&schema).unwrap();
    let valid = validator.is_valid(&value);
    assert_eq!(
        valid,
        validator.violations(&value).is_empty(),
        "is_valid and violations agree on {value} under {schema}"
    );
    valid
}

#[test]
fn types_name_the_value_and_the_type() {
    assert_eq!(
        first(json!({ "type": "string" }), json!(5)),
        (String::new(), "5 is not of type \"string\"".to_string())
    );
    assert_eq!(
        first(json!({ "type": ["null", "string"] }), json!(true)).1,
        "true is not of types \"null\", \"string\""
    );
    assert!(valid(json!({ "type": "integer" }), json!(7.0)));
    assert!(!valid(json!({ "type": "integer" }), json!(7.5)));
    assert!(valid(json!({ "type": "number" }), json!(7)));
}

#[test]
fn properties_come_before_the_objects_own_rules() {
    let schema = json!({
        "type": "object",
        "properties": { "text": { "type": "string" } },
        "required": ["text", "lang"],
        "additionalProperties": false
    });
    let validator = Validator::new(&schema).unwrap();
    let violations = validator.violations(&json!({ "text": 5, "a/b": 1, "c": 2 }));
    let found: Vec<(&str, &str)> = violations
        .iter()
        .map(|v| (v.instance_path.as_str(), v.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("/text", "5 is not of type \"string\""),
            (
                "",
                "Additional properties are not allowed ('a/b', 'c' were unexpected)"
            ),
            ("", "\"lang\" is a required property"),
        ]
    );
    assert_eq!(
        violations[1].kind,
        ViolationKind::AdditionalProperties {
            unexpected: vec!["a/b".to_string(), "c".to_string()]
        }
    );
}

#[test]
fn paths_escape_and_index() {
    let schema = json!({
        "properties": { "a/b": { "items": { "properties": { "n": { "maximum": 3 } } } } }
    });
    let (path, message) = first(schema, json!({ "a/b": [{ "n": 1 }, { "n": 4 }] }));
    assert_eq!(path, "/a~1b/1/n");
    assert_eq!(message, "4 is greater than the maximum of 3");
}

#[test]
fn numbers_compare_exactly() {
    assert!(!valid(json!({ "minimum": 2 }), json!(1.5)));
    assert!(valid(json!({ "minimum": 2 }), json!(2)));
    assert!(!valid(json!({ "exclusiveMinimum": 2 }), json!(2)));
    assert!(!valid(
        json!({ "minimum": 2, "exclusiveMinimum": true }),
        json!(2)
    ));
    assert!(!valid(json!({ "exclusiveMaximum": 2.5 }), json!(2.5)));
    assert!(valid(json!({ "maximum": u64::MAX }), json!(u64::MAX)));
    assert!(!valid(json!({ "maximum": i64::MAX }), json!(u64::MAX)));
    assert!(valid(json!({ "multipleOf": 0.1 }), json!(0.3)));
    assert!(!valid(json!({ "multipleOf": 3 }), json!(10)));
    assert!(valid(json!({ "enum": [1, "a"] }), json!(1.0)));
    assert!(valid(
        json!({ "const": { "a": [1] } }),
        json!({ "a": [1.0] })
    ));
    assert_eq!(
        first(json!({ "const": "x" }), json!("y")).1,
        "\"x\" was expected"
    );
}

#[test]
fn strings_count_characters_and_search_patterns() {
    assert!(valid(json!({ "maxLength": 2 }), json!("éé")));
    assert!(!valid(json!({ "minLength": 3 }), json!("éé")));
    assert!(valid(json!({ "pattern": "b+" }), json!("abbc")));
    assert_eq!(
        first(json!({ "pattern": "^[A-Z]{3}$" }), json!("eur")).1,
        "\"eur\" does not match \"^[A-Z]{3}$\""
    );
    // A look-ahead the `regex` crate cannot compile is not enforced, never a false refusal.
    assert!(valid(json!({ "pattern": "^(?=a)b" }), json!("zzz")));
}

#[test]
fn arrays_follow_both_drafts() {
    let tuple_2020 =
        json!({ "prefixItems": [{ "type": "string" }], "items": { "type": "integer" } });
    assert!(valid(tuple_2020.clone(), json!(["a", 1, 2])));
    assert_eq!(first(tuple_2020, json!(["a", 1, "b"])).0, "/2");
    let tuple_07 = json!({ "items": [{ "type": "string" }], "additionalItems": false });
    assert!(valid(tuple_07.clone(), json!(["a"])));
    assert!(!valid(tuple_07, json!(["a", 1])));
    assert!(!valid(json!({ "uniqueItems": true }), json!([1, 1.0])));
    assert!(!valid(json!({ "contains": { "const": 3 } }), json!([1, 2])));
    assert!(!valid(
        json!({ "contains": { "type": "integer" }, "maxContains": 1 }),
        json!([1, 2])
    ));
    assert!(!valid(json!({ "minItems": 1 }), json!([])));
}

#[test]
fn objects_check_names_and_dependencies() {
    let schema = json!({
        "patternProperties": { "^x-": { "type": "string" } },
        "additionalProperties": { "type": "integer" },
        "dependentRequired": { "card": ["cvc"] },
        "propertyNames": { "maxLength": 5 }
    });
    assert!(valid(schema.clone(), json!({ "x-a": "s", "n": 1 })));
    assert_eq!(first(schema.clone(), json!({ "x-a": 1 })).0, "/x-a");
    assert_eq!(first(schema.clone(), json!({ "n": "s" })).0, "/n");
    assert!(!valid(schema.clone(), json!({ "card": 1 })));
    assert!(!valid(schema, json!({ "toolong": 1 })));
    assert!(!valid(
        json!({ "dependencies": { "a": { "required": ["b"] } } }),
        json!({ "a": 1 })
    ));
}

#[test]
fn combinators() {
    let one = json!({ "oneOf": [{ "type": "integer" }, { "minimum": 0 }] });
    assert!(valid(one.clone(), json!(-1)));
    assert_eq!(
        first(one, json!(1)).1,
        "1 is valid under more than one of the schemas listed in the 'oneOf' keyword"
    );
    assert!(!valid(
        json!({ "anyOf": [{ "type": "string" }, { "type": "null" }] }),
        json!(1)
    ));
    assert!(!valid(json!({ "not": { "type": "null" } }), json!(null)));
    assert!(!valid(
        json!({ "allOf": [{ "minimum": 1 }, { "maximum": 0 }] }),
        json!(1)
    ));
    let conditional = json!({
        "if": { "properties": { "kind": { "const": "card" } } },
        "then": { "required": ["number"] },
        "else": { "required": ["iban"] }
    });
    assert!(!valid(conditional.clone(), json!({ "kind": "card" })));
    assert!(valid(
        conditional.clone(),
        json!({ "kind": "card", "number": 1 })
    ));
    assert!(!valid(conditional, json!({ "kind": "bank" })));
    assert!(!valid(json!(false), json!(1)));
    assert!(valid(json!(true), json!(1)));
}

#[test]
fn references_resolve_inside_the_schema() {
    let schema = json!({
        "$id": "https://example.com/trip",
        "$defs": {
            "Stop": { "$anchor": "stop", "type": "object", "required": ["name"] },
            "a b": { "type": "string" },
            "Tree": { "type": "object", "properties": { "kids": { "type": "array", "items": { "$ref": "#/$defs/Tree" } } } }
        },
        "properties": {
            "first": { "$ref": "#/$defs/Stop" },
            "second": { "$ref": "#stop" },
            "third": { "$ref": "https://example.com/trip#/$defs/Stop" },
            "label": { "$ref": "#/$defs/a%20b" },
            "tree": { "$ref": "#/$defs/Tree" }
        }
    });
    for field in ["first", "second", "third"] {
        assert_eq!(
            first(schema.clone(), json!({ field: {} })).0,
            format!("/{field}")
        );
    }
    assert!(!valid(schema.clone(), json!({ "label": 1 })));
    let mut tree = json!({});
    for _ in 0..100 {
        tree = json!({ "kids": [tree] });
    }
    assert!(valid(schema.clone(), json!({ "tree": tree })));
    assert!(!valid(schema, json!({ "tree": { "kids": [1] } })));
}

#[test]
fn a_reference_that_loops_stops() {
    let validator = Validator::new(&json!({ "$ref": "#" })).unwrap();
    let violations = validator.violations(&json!(1));
    assert!(
        violations[0].message.contains("more than 128 references"),
        "{violations:?}"
    );
}

#[test]
fn schemas_that_cannot_be_checked_faithfully_do_not_compile() {
    for (schema, reason) in [
        (json!({ "$ref": "other.json#/a" }), "does not resolve"),
        (json!({ "$ref": "#/$defs/Missing" }), "does not resolve"),
        (json!({ "type": "strin" }), "not a JSON Schema type"),
        (json!({ "properties": { "a": 5 } }), "object or a boolean"),
        (json!({ "required": "a" }), "is an array"),
        (json!({ "minLength": -1 }), "non-negative integer"),
        (json!({ "multipleOf": 0 }), "greater than 0"),
        (json!({ "anyOf": {} }), "array of schemas"),
    ] {
        let error = Validator::new(&schema).unwrap_err();
        assert!(error.to_string().contains(reason), "{schema}: {error}");
    }
    let mut deep = json!({});
    for _ in 0..200 {
        deep = json!({ "items": deep });
    }
    assert!(Validator::new(&deep).is_err());
}

#[test]
fn long_values_are_cut_in_messages() {
    let (_, message) = first(json!({ "type": "integer" }), json!("x".repeat(1000)));
    assert!(message.chars().count() < 160, "{message}");
    assert!(message.contains('…'));
}

#[test]
fn many_properties_are_found_by_name() {
    let mut properties = serde_json::Map::new();
    for i in 0..70 {
        properties.insert(format!("p{i}"), json!({ "type": "integer" }));
    }
    let required: Vec<String> = (0..70).step_by(7).map(|i| format!("p{i}")).collect();
    let schema = json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    });
    let mut value = serde_json::Map::new();
    for i in 0..70 {
        value.insert(format!("p{i}"), json!(i));
    }
    assert!(valid(schema.clone(), Value::Object(value.clone())));
    value.insert("p69".to_string(), json!("x"));
    assert_eq!(
        first(schema.clone(), Value::Object(value.clone())).0,
        "/p69"
    );
    value.insert("p69".to_string(), json!(1));
    value.remove("p63");
    assert_eq!(
        first(schema.clone(), Value::Object(value.clone())).1,
        "\"p63\" is a required property"
    );
    value.insert("p63".to_string(), json!(1));
    value.insert("q".to_string(), json!(1));
    assert_eq!(
        first(schema, Value::Object(value)).1,
        "Additional properties are not allowed ('q' was unexpected)"
    );
}
