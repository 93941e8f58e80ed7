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

#[path = "schema_dialects/rules.rs"]
mod rules;
use rules::check_rules;
#[path = "schema_dialects/bad_input.rs"]
mod bad_input;
#[path = "schema_dialects/key_rules.rs"]
mod key_rules;

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
