//! Lowering canonical schemas into each provider dialect.
//!
//! Every case is a Rust type as a tool would take it; each is lowered into all four dialects
//! and the result (or the `SchemaError`) is snapshotted. The snapshots are backed by plain
//! checks of the rules each dialect must keep, so a wrong snapshot cannot be blessed silently.

#![allow(dead_code)]

use std::collections::{HashMap, HashSet};

use agentry::schema::{Dialect, SchemaError, canonical_schema_for, lower};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// The types.

/// A place on the map.
#[derive(Deserialize, JsonSchema)]
struct Place {
    name: String,
    country: String,
}

/// Nested structs, used twice (so shared through `$defs`).
#[derive(Deserialize, JsonSchema)]
struct Trip {
    destination: Place,
    stops: Vec<Place>,
}

#[derive(Deserialize, JsonSchema)]
enum SortOrder {
    Asc,
    Desc,
}

/// `Option` of a primitive, of a unit enum and of a struct.
#[derive(Deserialize, JsonSchema)]
struct Search {
    query: String,
    limit: Option<u32>,
    sort: Option<SortOrder>,
    near: Option<Place>,
}

/// Temperature units.
#[derive(Deserialize, JsonSchema)]
enum Units {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// Unit enums, with and without documented variants.
#[derive(Deserialize, JsonSchema)]
struct Forecast {
    units: Units,
    order: SortOrder,
}

#[derive(Deserialize, JsonSchema)]
struct Square {
    side: f64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Rect { w: f64, h: f64 },
    Square(Square),
    Empty,
}

/// An internally tagged enum, with a newtype variant (`$ref` beside the tag).
#[derive(Deserialize, JsonSchema)]
struct DrawShape {
    shape: Shape,
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
enum Command {
    Move { x: i32, y: i32 },
    Say(String),
    Stop,
}

/// An adjacently tagged enum.
#[derive(Deserialize, JsonSchema)]
struct Run {
    command: Command,
}

#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum IdOrName {
    Id(u64),
    Name(String),
}

/// An untagged enum.
#[derive(Deserialize, JsonSchema)]
struct Lookup {
    target: IdOrName,
}

#[derive(Deserialize, JsonSchema)]
enum Action {
    Wait,
    Go { to: String },
    Jump(u8),
}

/// An externally tagged enum mixing unit, struct and newtype variants.
#[derive(Deserialize, JsonSchema)]
struct Act {
    action: Action,
}

/// A map with arbitrary keys.
#[derive(Deserialize, JsonSchema)]
struct Labels {
    labels: HashMap<String, String>,
}

/// Vectors of primitives, of vectors and of structs.
#[derive(Deserialize, JsonSchema)]
struct Batch {
    ids: Vec<u64>,
    matrix: Vec<Vec<f32>>,
    places: Vec<Place>,
}

/// A recursive root (`$ref: "#"`).
#[derive(Deserialize, JsonSchema)]
struct TreeNode {
    name: String,
    children: Vec<TreeNode>,
}

#[derive(Deserialize, JsonSchema)]
struct Dir {
    name: String,
    sub: Vec<Dir>,
    parent: Option<Box<Dir>>,
}

/// A recursive definition (`$ref: "#/$defs/Dir"`).
#[derive(Deserialize, JsonSchema)]
struct FileSystem {
    root: Dir,
}

/// Renamed fields.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct UserProfile {
    first_name: String,
    #[serde(rename = "e-mail")]
    email: String,
    last_login_at: Option<String>,
}

fn default_size() -> u32 {
    20
}

/// Defaults make fields optional.
#[derive(Deserialize, JsonSchema)]
struct Paging {
    #[serde(default)]
    page: u32,
    #[serde(default = "default_size")]
    size: u32,
    #[serde(default)]
    verbose: bool,
    #[serde(default)]
    units: Option<Units>,
}

/// `serde_json::Value` accepts any JSON.
#[derive(Deserialize, JsonSchema)]
struct Patch {
    path: String,
    value: Value,
}

/// Number, pattern and array-length constraints.
#[derive(Deserialize, JsonSchema)]
struct Booking {
    #[schemars(range(min = 1, max = 10))]
    guests: u8,
    #[schemars(range(min = 0.0, max = 10000.0))]
    budget_eur: f64,
    #[schemars(regex(pattern = r"^[A-Z]{3}$"))]
    airport: String,
    #[schemars(length(min = 1, max = 5))]
    tags: Vec<String>,
}

/// A string-length constraint.
#[derive(Deserialize, JsonSchema)]
struct Username {
    #[schemars(length(min = 3, max = 20))]
    name: String,
}

/// A set (`uniqueItems`).
#[derive(Deserialize, JsonSchema)]
struct Tagging {
    tags: HashSet<String>,
}

/// A reservation.
#[derive(Deserialize, JsonSchema)]
struct Reservation {
    /// Who is staying.
    guest: Guest,
    /// Who else is staying.
    others: Vec<Guest>,
    /// Whom to call, if not the guest.
    contact: Option<Guest>,
}

/// A guest.
#[derive(Deserialize, JsonSchema)]
struct Guest {
    /// Full name as on the passport.
    name: String,
    /// Age in years.
    age: Option<u8>,
}

/// A struct with a flattened tagged enum (`properties` beside `oneOf`), in a field (at the
/// root, a union is refused by every dialect).
#[derive(Deserialize, JsonSchema)]
struct Track {
    event: Event,
}

#[derive(Deserialize, JsonSchema)]
struct Event {
    id: u32,
    #[serde(flatten)]
    payload: Payload,
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "type")]
enum Payload {
    Click { x: i32, y: i32 },
    Key { code: String },
}

/// A tool without arguments.
#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

// ---------------------------------------------------------------------------------------------
// The cases.

fn cases() -> Vec<(&'static str, Value)> {
    vec![
        ("nested_struct", canonical_schema_for::<Trip>()),
        ("option", canonical_schema_for::<Search>()),
        ("unit_enum", canonical_schema_for::<Forecast>()),
        ("internally_tagged", canonical_schema_for::<DrawShape>()),
        ("adjacently_tagged", canonical_schema_for::<Run>()),
        ("untagged", canonical_schema_for::<Lookup>()),
        ("externally_tagged", canonical_schema_for::<Act>()),
        ("map", canonical_schema_for::<Labels>()),
        ("vec", canonical_schema_for::<Batch>()),
        ("recursive_root", canonical_schema_for::<TreeNode>()),
        ("recursive_definition", canonical_schema_for::<FileSystem>()),
        ("renamed", canonical_schema_for::<UserProfile>()),
        ("defaults", canonical_schema_for::<Paging>()),
        ("json_value", canonical_schema_for::<Value>()),
        ("json_value_field", canonical_schema_for::<Patch>()),
        ("number_constraints", canonical_schema_for::<Booking>()),
        ("string_length", canonical_schema_for::<Username>()),
        ("set", canonical_schema_for::<HashSet<String>>()),
        ("set_field", canonical_schema_for::<Tagging>()),
        ("nested_doc_comments", canonical_schema_for::<Reservation>()),
        ("flattened_enum", canonical_schema_for::<Track>()),
        ("flattened_enum_root", canonical_schema_for::<Event>()),
        ("enum_root", canonical_schema_for::<Units>()),
        ("no_arguments", canonical_schema_for::<NoArgs>()),
    ]
}

/// What each dialect must do with each case: `Ok` or the canonical path it refuses at.
fn expected(dialect: Dialect, case: &str) -> Result<(), &'static str> {
    use Dialect::*;
    match (dialect, case) {
        (_, "enum_root" | "set" | "json_value") => Err(""),
        (OpenAiStrict | Gemini, "flattened_enum_root") => Err(""),
        (OpenAi | Anthropic, "flattened_enum_root") => Err("/oneOf"),
        (OpenAiStrict | Gemini, "map") => Err("/properties/labels/additionalProperties"),
        (OpenAiStrict | Gemini, "json_value_field") => Err("/properties/value"),
        // Keywords are visited in key order: `maxLength` comes first.
        (OpenAiStrict, "string_length") => Err("/properties/name/maxLength"),
        (OpenAiStrict | Gemini, "set_field") => Err("/properties/tags/uniqueItems"),
        (Gemini, "recursive_root") => Err("/properties/children/items/$ref"),
        (Gemini, "recursive_definition") => Err("/$defs/Dir/properties/parent/anyOf/0/$ref"),
        _ => Ok(()),
    }
}

fn outcome(result: &Result<Value, SchemaError>) -> Value {
    match result {
        Ok(schema) => schema.clone(),
        Err(e) => json!({ "error": { "dialect": e.dialect, "path": e.path, "reason": e.reason } }),
    }
}

fn check_dialect(dialect: Dialect) {
    for (case, canonical) in cases() {
        let lowered = lower(&canonical, dialect);
        match (expected(dialect, case), &lowered) {
            (Ok(()), Ok(schema)) => check_rules(dialect, case, &canonical, schema),
            (Err(path), Err(e)) => {
                assert_eq!(e.dialect, dialect, "{case}");
                assert_eq!(e.path, path, "{dialect} {case}: {e}");
                assert!(e.reason.ends_with(|c: char| c != '.') && !e.reason.is_empty());
            }
            (Ok(()), Err(e)) => panic!("{dialect} {case}: expected a schema, got: {e}"),
            (Err(path), Ok(schema)) => {
                panic!("{dialect} {case}: expected an error at `{path}`, got {schema:#}")
            }
        }
        insta::assert_json_snapshot!(format!("{dialect}__{case}"), outcome(&lowered));
    }
}

#[test]
fn openai_strict() {
    check_dialect(Dialect::OpenAiStrict);
}

#[test]
fn openai() {
    check_dialect(Dialect::OpenAi);
}

#[test]
fn anthropic() {
    check_dialect(Dialect::Anthropic);
}

#[test]
fn gemini() {
    check_dialect(Dialect::Gemini);
}

// ---------------------------------------------------------------------------------------------
// The rules, checked on every lowered schema.

fn check_rules(dialect: Dialect, case: &str, canonical: &Value, schema: &Value) {
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

// ---------------------------------------------------------------------------------------------
// Key rules, asserted directly.

#[test]
fn strict_optional_fields_become_nullable_and_required() {
    let strict = lower(&canonical_schema_for::<Search>(), Dialect::OpenAiStrict).unwrap();
    assert_eq!(
        strict["required"],
        json!(["limit", "near", "query", "sort"])
    );
    // A plain type gets a type array...
    assert_eq!(
        strict["properties"]["limit"]["type"],
        json!(["integer", "null"])
    );
    // ...a reference an `anyOf` with null; one already nullable is left as it was.
    assert_eq!(
        strict["properties"]["near"],
        json!({ "anyOf": [{ "$ref": "#/$defs/Place" }, { "type": "null" }] })
    );
    assert_eq!(strict["properties"]["query"], json!({ "type": "string" }));
    // Defaults are optional too: nullable, and the default itself is dropped.
    let paging = lower(&canonical_schema_for::<Paging>(), Dialect::OpenAiStrict).unwrap();
    assert_eq!(
        paging["properties"]["verbose"],
        json!({ "type": ["boolean", "null"] })
    );
}

#[test]
fn strict_moves_a_description_off_a_reference() {
    let strict = lower(
        &canonical_schema_for::<Reservation>(),
        Dialect::OpenAiStrict,
    )
    .unwrap();
    assert_eq!(
        strict["properties"]["guest"],
        json!({ "description": "Who is staying.", "anyOf": [{ "$ref": "#/$defs/Guest" }] })
    );
    assert_eq!(
        strict["$defs"]["Guest"]["properties"]["name"]["description"],
        "Full name as on the passport."
    );
}

#[test]
fn strict_merges_a_reference_with_the_tag_beside_it() {
    let strict = lower(&canonical_schema_for::<DrawShape>(), Dialect::OpenAiStrict).unwrap();
    let square = &strict["$defs"]["Shape"]["anyOf"][2];
    assert_eq!(
        square["required"],
        json!(["kind", "side"]),
        "all properties, in order"
    );
    assert_eq!(square["properties"]["kind"]["const"], "square");
    assert_eq!(square["properties"]["side"]["type"], "number");
}

#[test]
fn strict_keeps_supported_formats_and_drops_the_rest() {
    let canonical = json!({
        "type": "object",
        "properties": {
            "at": { "type": "string", "format": "date-time" },
            "n": { "type": "integer", "format": "uint32", "minimum": 0 }
        },
        "required": ["at", "n"]
    });
    let strict = lower(&canonical, Dialect::OpenAiStrict).unwrap();
    assert_eq!(strict["properties"]["at"]["format"], "date-time");
    assert_eq!(
        strict["properties"]["n"],
        json!({ "type": "integer", "minimum": 0 })
    );
}

#[test]
fn strict_checks_openai_size_limits() {
    // Eleven nested objects.
    let mut schema = json!({ "type": "object", "properties": {} });
    for _ in 0..10 {
        schema =
            json!({ "type": "object", "properties": { "inner": schema }, "required": ["inner"] });
    }
    let err = lower(&schema, Dialect::OpenAiStrict).unwrap_err();
    assert!(err.reason.contains("10 levels"), "{err}");
    assert_eq!(err.path, "/properties/inner".repeat(10));
    // Ten are fine.
    let ten = schema["properties"]["inner"].clone();
    assert!(lower(&ten, Dialect::OpenAiStrict).is_ok());

    // Nesting through recursive references adds no depth.
    assert!(lower(&canonical_schema_for::<FileSystem>(), Dialect::OpenAiStrict).is_ok());

    let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
    let big_enum = json!({
        "type": "object",
        "properties": { "v": { "type": "string", "enum": values } },
        "required": ["v"]
    });
    let err = lower(&big_enum, Dialect::OpenAiStrict).unwrap_err();
    assert_eq!(err.path, "/properties/v/enum");
    // Other dialects have no such limit.
    assert!(lower(&big_enum, Dialect::OpenAi).is_ok());
}

#[test]
fn strict_refuses_overlapping_one_of() {
    let canonical = json!({
        "type": "object",
        "properties": { "n": { "oneOf": [{ "type": "integer" }, { "type": "number" }] } },
        "required": ["n"]
    });
    for dialect in [Dialect::OpenAiStrict, Dialect::Gemini] {
        let err = lower(&canonical, dialect).unwrap_err();
        assert_eq!(err.path, "/properties/n/oneOf");
        assert!(err.reason.contains("alternatives 0 and 1"), "{err}");
    }
    // Sent as it is where `oneOf` exists.
    assert_eq!(lower(&canonical, Dialect::OpenAi).unwrap(), canonical);
}

#[test]
fn gemini_inlines_references_and_marks_nullable() {
    let gemini = lower(&canonical_schema_for::<Search>(), Dialect::Gemini).unwrap();
    assert_eq!(
        gemini["properties"]["near"],
        json!({
            "type": "object",
            "description": "A place on the map.",
            "properties": { "country": { "type": "string" }, "name": { "type": "string" } },
            "required": ["name", "country"],
            "nullable": true
        })
    );
    assert_eq!(
        gemini["properties"]["limit"],
        json!({ "type": "integer", "minimum": 0, "nullable": true })
    );
    assert_eq!(
        gemini["properties"]["sort"],
        json!({ "type": "string", "enum": ["Asc", "Desc"], "nullable": true })
    );
    assert_eq!(gemini["required"], json!(["query"]));
}

#[test]
fn gemini_turns_const_into_a_one_value_enum() {
    let gemini = lower(&canonical_schema_for::<Run>(), Dialect::Gemini).unwrap();
    let stop = &gemini["properties"]["command"]["anyOf"][2];
    assert_eq!(
        stop["properties"]["t"],
        json!({ "type": "string", "enum": ["Stop"] })
    );
}

#[test]
fn gemini_detects_indirect_recursion() {
    let canonical = json!({
        "type": "object",
        "properties": { "a": { "$ref": "#/$defs/A" } },
        "$defs": {
            "A": { "type": "object", "properties": { "b": { "$ref": "#/$defs/B" } } },
            "B": { "type": "array", "items": { "$ref": "#/$defs/A" } }
        }
    });
    let err = lower(&canonical, Dialect::Gemini).unwrap_err();
    assert_eq!(err.path, "/$defs/B/items/$ref");
    assert!(err.reason.contains("recursive"), "{err}");
    // OpenAI strict supports recursion.
    assert!(lower(&canonical, Dialect::OpenAiStrict).is_ok());
}

#[test]
fn dialects_serialize_under_their_names() {
    for dialect in Dialect::ALL {
        assert_eq!(serde_json::to_value(dialect).unwrap(), dialect.name());
        assert_eq!(
            serde_json::from_value::<Dialect>(json!(dialect.name())).unwrap(),
            dialect
        );
    }
}

#[test]
fn errors_name_dialect_path_and_remedy() {
    let err = lower(&canonical_schema_for::<Labels>(), Dialect::OpenAiStrict).unwrap_err();
    assert_eq!(
        err.to_string(),
        "schema not representable in the openai_strict dialect at `/properties/labels/additionalProperties`: \
         OpenAI strict mode cannot express a map with arbitrary keys; use a Vec of key/value structs, or set `strict = false`"
    );
    let err = lower(&json!({ "type": "string" }), Dialect::Anthropic).unwrap_err();
    assert!(err.to_string().contains("at the root:"), "{err}");
}

#[test]
fn tool_definitions_cache_lowered_schemas_and_errors() {
    let def = agentry::ToolDefinition::new(
        "label",
        "Label things.",
        canonical_schema_for::<Labels>(),
        true,
    );
    let first = def.parameters_for(Dialect::OpenAi).unwrap() as *const Value;
    let second = def.parameters_for(Dialect::OpenAi).unwrap() as *const Value;
    assert_eq!(first, second, "lowered once, then borrowed from the cache");
    assert!(def.parameters_for(Dialect::OpenAiStrict).is_err());
    assert!(def.parameters_for(Dialect::Gemini).is_err());
}

// ---------------------------------------------------------------------------------------------
// Bad input is an error, never a panic.

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
