//! JSON Schema 2020-12 keywords, grouped by what lowering may do with them.

/// Keywords that only annotate: dropping one never changes which values a schema accepts.
/// (`format` is an annotation too in 2020-12, but dialects keep the values they support.)
pub(super) const ANNOTATIONS: &[&str] = &[
    "title",
    "default",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// Keywords whose value is one subschema.
pub(super) const SUBSCHEMA: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
    "additionalItems",
];

/// Keywords whose value is an array of subschemas.
pub(super) const SUBSCHEMA_ARRAYS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value maps names to subschemas.
pub(super) const SUBSCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Keywords written as booleans often enough that dialects keep the boolean form.
pub(super) const BOOLEAN_FRIENDLY: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "items",
    "unevaluatedItems",
    "additionalItems",
];

/// Keywords that change how references resolve; the SDK only follows local `#/...` pointers.
pub(super) const SCOPE_CHANGING: &[&str] = &[
    "$id",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
    "$vocabulary",
];

/// Validation keywords that constrain values and that some dialects cannot express. Dropping
/// one would make the provider accept values the canonical schema rejects.
pub(super) const CONSTRAINTS: &[&str] = &[
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "prefixItems",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
    "additionalItems",
    "minProperties",
    "maxProperties",
    "patternProperties",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
];

/// What to do instead of a constraint `dialect_label` cannot express; `escape` names the way
/// out that keeps the constraint (e.g. "set `strict = false`"), if there is one.
pub(super) fn unsupported(dialect_label: &str, keyword: &str, escape: &str) -> String {
    let instead = match keyword {
        "minLength" | "maxLength" => {
            "remove the length limit from the type and check it in the tool"
        }
        "uniqueItems" => "use a `Vec` and remove duplicates in the tool",
        "prefixItems" | "additionalItems" => "use a struct with named fields instead of a tuple",
        "minProperties" | "maxProperties" | "patternProperties" | "propertyNames" => {
            "use a struct with named fields"
        }
        "exclusiveMinimum" | "exclusiveMaximum" => "use an inclusive `minimum`/`maximum`",
        "multipleOf" => "check the step in the tool",
        "not" | "if" | "then" | "else" | "dependentRequired" | "dependentSchemas"
        | "dependencies" => "express the rule with an enum or check it in the tool",
        _ => "check the constraint in the tool",
    };
    format!("{dialect_label} does not support `{keyword}`; {instead}{escape}")
}
