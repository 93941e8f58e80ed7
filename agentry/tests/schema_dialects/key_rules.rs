//! Key rules of the dialects, asserted directly: strict optional fields, references and their
//! descriptions, formats, size limits, Gemini's inlining and enums, errors and caching.

use super::*;

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
