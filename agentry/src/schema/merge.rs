//! Combining two lowered schemas that must both hold (`allOf`, or a `$ref` with sibling
//! keywords such as the tag of an internally tagged enum variant).
//!
//! Dialects without `allOf` need the conjunction written as one schema. Keywords are united;
//! `properties` and `required` are merged; a union (`anyOf`) on one side is distributed over
//! the other side, so `{tag} ∧ (A ∨ B)` becomes `(tag ∧ A) ∨ (tag ∧ B)` — the only form that
//! stays correct once objects are closed with `additionalProperties: false`. Anything that
//! would need real intersection (two different values for one keyword) is refused.

use serde_json::{Map, Value};

/// `a ∧ b`, or why it cannot be written as one schema. On keywords both sides annotate
/// (`description`), `b` wins: callers pass the more specific schema second.
pub(super) fn conjunction(a: Value, b: Value) -> Result<Value, String> {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => merge_maps(a, b).map(Value::Object),
        _ => Err("only object-shaped schemas can be combined".to_string()),
    }
}

fn merge_maps(
    mut a: Map<String, Value>,
    mut b: Map<String, Value>,
) -> Result<Map<String, Value>, String> {
    match (a.remove("anyOf"), b.remove("anyOf")) {
        (Some(_), Some(_)) => Err(
            "two unions (`anyOf`) that must both hold cannot be combined into one; restructure the type so only one enum applies at this place"
                .to_string(),
        ),
        (Some(union), None) => distribute(a, union, b, true),
        (None, Some(union)) => distribute(b, union, a, false),
        (None, None) => unite(a, b),
    }
}

/// `(outer ∧ (x₁ ∨ x₂ ∨ …)) ∧ other` as `(x₁ ∧ rest) ∨ (x₂ ∧ rest) ∨ …`.
///
/// `union_first` says whether the union side came first (so `b` of the original call wins
/// on annotations either way).
fn distribute(
    outer: Map<String, Value>,
    union: Value,
    other: Map<String, Value>,
    union_first: bool,
) -> Result<Map<String, Value>, String> {
    let Value::Array(branches) = union else {
        return Err("`anyOf` must be an array".to_string());
    };
    let (mut annotations, outer_rest): (Map<String, Value>, Map<String, Value>) =
        outer.into_iter().partition(|(k, _)| k == "description");
    let mut other = other;
    let other_description = other.remove("description");
    let mut merged = Vec::with_capacity(branches.len());
    for branch in branches {
        let Value::Object(branch) = branch else {
            return Err("an alternative of `anyOf` is not a schema object".to_string());
        };
        let branch = unite(branch, outer_rest.clone())?;
        let branch = if union_first {
            merge_maps(branch, other.clone())?
        } else {
            merge_maps(other.clone(), branch)?
        };
        merged.push(Value::Object(branch));
    }
    // The union node's own description, unless the other side is the more specific one.
    if let Some(description) = other_description
        && (union_first || !annotations.contains_key("description"))
    {
        annotations.insert("description".to_string(), description);
    }
    annotations.insert("anyOf".to_string(), Value::Array(merged));
    Ok(annotations)
}

fn unite(mut a: Map<String, Value>, b: Map<String, Value>) -> Result<Map<String, Value>, String> {
    for (key, value) in b {
        let Some(existing) = a.get_mut(&key) else {
            a.insert(key, value);
            continue;
        };
        match key.as_str() {
            "description" => *existing = value,
            "properties" => merge_properties(existing, value)?,
            "required" => merge_required(existing, value)?,
            _ if *existing == value => {}
            _ => {
                return Err(format!(
                    "the combined schemas give `{key}` two different values; make them agree or move one into its own field"
                ));
            }
        }
    }
    Ok(a)
}

fn merge_properties(existing: &mut Value, added: Value) -> Result<(), String> {
    let (Value::Object(existing), Value::Object(added)) = (existing, added) else {
        return Err("`properties` must be an object".to_string());
    };
    for (name, schema) in added {
        match existing.get(&name) {
            Some(current) if *current != schema => {
                return Err(format!(
                    "property `{name}` is defined twice with different schemas; rename one of them"
                ));
            }
            Some(_) => {}
            None => {
                existing.insert(name, schema);
            }
        }
    }
    Ok(())
}

fn merge_required(existing: &mut Value, added: Value) -> Result<(), String> {
    let (Value::Array(existing), Value::Array(added)) = (existing, added) else {
        return Err("`required` must be an array of property names".to_string());
    };
    for name in added {
        if !existing.contains(&name) {
            existing.push(name);
        }
    }
    Ok(())
}

/// Attaches `union` to the keywords that stood beside it (`siblings`): they must hold for every
/// alternative, so they are combined with `merge`; the siblings' `description` stays on the
/// result, as the more specific one.
pub(super) fn with_union_siblings(
    mut siblings: Map<String, Value>,
    union: Value,
    merge: impl FnOnce(Value, Value) -> Result<Value, String>,
) -> Result<Value, String> {
    let description = siblings.remove("description");
    let mut merged = if siblings.is_empty() {
        union
    } else {
        merge(Value::Object(siblings), union)?
    };
    if let (Some(description), Value::Object(map)) = (description, &mut merged) {
        map.insert("description".to_string(), description);
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::conjunction;

    #[test]
    fn objects_are_united() {
        let a = json!({ "type": "object", "properties": { "side": { "type": "number" } }, "required": ["side"] });
        let b = json!({ "type": "object", "properties": { "kind": { "const": "square" } }, "required": ["kind"] });
        assert_eq!(
            conjunction(a, b).unwrap(),
            json!({
                "type": "object",
                "properties": { "side": { "type": "number" }, "kind": { "const": "square" } },
                "required": ["side", "kind"]
            })
        );
    }

    #[test]
    fn a_union_is_distributed() {
        let union = json!({ "description": "A shape.", "anyOf": [
            { "type": "object", "properties": { "r": { "type": "number" } } },
            { "type": "object", "properties": { "w": { "type": "number" } } }
        ]});
        let base = json!({ "type": "object", "properties": { "id": { "type": "integer" } } });
        let merged = conjunction(base, union).unwrap();
        assert_eq!(merged["description"], "A shape.");
        let branches = merged["anyOf"].as_array().unwrap();
        assert_eq!(branches.len(), 2);
        for branch in branches {
            assert_eq!(branch["properties"]["id"], json!({ "type": "integer" }));
        }
    }

    #[test]
    fn conflicts_are_refused() {
        let a = json!({ "type": "object", "properties": { "x": { "type": "string" } } });
        let b = json!({ "type": "object", "properties": { "x": { "type": "integer" } } });
        assert!(conjunction(a, b).unwrap_err().contains("`x`"));
        let a = json!({ "type": "string" });
        let b = json!({ "type": "integer" });
        assert!(conjunction(a, b).unwrap_err().contains("`type`"));
        assert!(conjunction(json!(true), json!({})).is_err());
    }
}
