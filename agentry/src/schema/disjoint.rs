//! Proving that the alternatives of a `oneOf` never overlap.
//!
//! `oneOf` accepts a value that matches exactly one alternative, `anyOf` one that matches at
//! least one. The two accept the same values when no value can match two alternatives, and
//! only then may a dialect without `oneOf` rewrite it as `anyOf`. Every enum schemars derives
//! is built that way (a tag with a distinct `const`, distinct JSON types, or closed objects
//! keyed by the variant name); this module recognises those shapes.

use serde_json::{Map, Value};

use super::walk::{resolve, type_names};

/// How many `$ref` hops are followed when looking at an alternative.
const MAX_HOPS: usize = 8;

/// The first pair of alternatives that may overlap, if any.
pub(super) fn overlapping_pair(root: &Value, alternatives: &[Value]) -> Option<(usize, usize)> {
    let facts: Vec<Facts<'_>> = alternatives.iter().map(|a| Facts::of(root, a)).collect();
    for (i, a) in facts.iter().enumerate() {
        for (j, b) in facts.iter().enumerate().skip(i + 1) {
            if !a.disjoint_from(b, root) {
                return Some((i, j));
            }
        }
    }
    None
}

/// JSON types as bits. A number that is integral matches both `number` and `integer`.
mod bits {
    pub(super) const NULL: u8 = 1;
    pub(super) const BOOLEAN: u8 = 2;
    pub(super) const OBJECT: u8 = 4;
    pub(super) const ARRAY: u8 = 8;
    pub(super) const STRING: u8 = 16;
    pub(super) const INTEGER: u8 = 32;
    pub(super) const NUMBER: u8 = 64;
}

fn type_bits(names: &[&str]) -> u8 {
    names
        .iter()
        .map(|name| match *name {
            "null" => bits::NULL,
            "boolean" => bits::BOOLEAN,
            "object" => bits::OBJECT,
            "array" => bits::ARRAY,
            "string" => bits::STRING,
            "integer" => bits::INTEGER,
            // Every integer is a number.
            _ => bits::NUMBER | bits::INTEGER,
        })
        .fold(0, |acc, b| acc | b)
}

fn value_bits(value: &Value) -> u8 {
    match value {
        Value::Null => bits::NULL,
        Value::Bool(_) => bits::BOOLEAN,
        Value::Object(_) => bits::OBJECT,
        Value::Array(_) => bits::ARRAY,
        Value::String(_) => bits::STRING,
        Value::Number(n) => {
            let integral = n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0);
            if integral {
                bits::NUMBER | bits::INTEGER
            } else {
                bits::NUMBER
            }
        }
    }
}

/// What an alternative says about the values it accepts, as far as the proof needs.
#[derive(Default)]
struct Facts<'a> {
    /// The JSON types it accepts, when known.
    types: Option<u8>,
    /// The only values it accepts (`const` / `enum`), when known.
    values: Option<Vec<&'a Value>>,
    /// Property schemas, from the alternative and the definitions it references.
    properties: Vec<&'a Map<String, Value>>,
    /// Properties a matching object must have.
    required: Vec<&'a str>,
    /// The complete set of allowed property names, when the object is closed.
    closed: Option<&'a Map<String, Value>>,
}

impl<'a> Facts<'a> {
    fn of(root: &'a Value, alternative: &'a Value) -> Self {
        let mut facts = Facts::default();
        let mut node = alternative;
        for hop in 0..MAX_HOPS {
            let Value::Object(map) = node else { break };
            if facts.types.is_none() {
                facts.types = map.get("type").and_then(type_names).map(|n| type_bits(&n));
            }
            if facts.values.is_none() {
                facts.values = values_of(map);
            }
            if let Some(Value::Object(properties)) = map.get("properties") {
                facts.properties.push(properties);
                let closed = matches!(map.get("additionalProperties"), Some(Value::Bool(false)));
                // Only an object described entirely here has a known, complete property set.
                if closed && hop == 0 && !map.contains_key("$ref") && !map.contains_key("allOf") {
                    facts.closed = Some(properties);
                }
            }
            if let Some(Value::Array(required)) = map.get("required") {
                facts
                    .required
                    .extend(required.iter().filter_map(Value::as_str));
            }
            match map.get("$ref").and_then(Value::as_str) {
                Some(reference) => match resolve(root, reference) {
                    Some(target) => node = target,
                    None => break,
                },
                None => break,
            }
        }
        facts
    }

    fn disjoint_from(&self, other: &Facts<'_>, root: &Value) -> bool {
        if let (Some(a), Some(b)) = (self.types, other.types)
            && a & b == 0
        {
            return true;
        }
        if let (Some(a), Some(b)) = (&self.values, &other.values)
            && !a.iter().any(|v| b.contains(v))
        {
            return true;
        }
        if values_outside_types(self, other) || values_outside_types(other, self) {
            return true;
        }
        if self.has_distinct_tag(other, root) {
            return true;
        }
        closed_against(self, other) || closed_against(other, self)
    }

    /// A property both require whose allowed values never meet (a serde tag).
    fn has_distinct_tag(&self, other: &Facts<'_>, root: &Value) -> bool {
        self.required
            .iter()
            .filter(|name| other.required.contains(name))
            .any(|name| {
                let (Some(a), Some(b)) = (
                    self.property_values(name, root),
                    other.property_values(name, root),
                ) else {
                    return false;
                };
                !a.iter().any(|v| b.contains(v))
            })
    }

    fn property_values(&self, name: &str, root: &'a Value) -> Option<Vec<&'a Value>> {
        let mut schema = self.properties.iter().find_map(|p| p.get(name))?;
        for _ in 0..MAX_HOPS {
            let Value::Object(map) = schema else {
                return None;
            };
            if let Some(values) = values_of(map) {
                return Some(values);
            }
            schema = resolve(root, map.get("$ref")?.as_str()?)?;
        }
        None
    }
}

/// Every value `a` allows has a type `b` rejects.
fn values_outside_types(a: &Facts<'_>, b: &Facts<'_>) -> bool {
    match (&a.values, b.types) {
        (Some(values), Some(types)) => values.iter().all(|v| value_bits(v) & types == 0),
        _ => false,
    }
}

/// `a` is a closed object and `b` requires a property `a` does not allow. (A non-object value
/// could still match both, unless the types already keep them apart.)
fn closed_against(a: &Facts<'_>, b: &Facts<'_>) -> bool {
    let only_objects = |types: Option<u8>| types == Some(bits::OBJECT);
    match a.closed {
        Some(allowed) if only_objects(a.types) && only_objects(b.types) => {
            b.required.iter().any(|name| !allowed.contains_key(*name))
        }
        _ => false,
    }
}

fn values_of(map: &Map<String, Value>) -> Option<Vec<&Value>> {
    if let Some(value) = map.get("const") {
        return Some(vec![value]);
    }
    match map.get("enum") {
        Some(Value::Array(values)) => Some(values.iter().collect()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::overlapping_pair;

    fn pair(alternatives: serde_json::Value) -> Option<(usize, usize)> {
        let root = json!({});
        overlapping_pair(&root, alternatives.as_array().unwrap())
    }

    #[test]
    fn distinct_types_are_disjoint() {
        assert_eq!(
            pair(json!([{ "type": "string" }, { "type": "object" }])),
            None
        );
    }

    #[test]
    fn integer_and_number_overlap() {
        assert_eq!(
            pair(json!([{ "type": "integer" }, { "type": "number" }])),
            Some((0, 1))
        );
    }

    #[test]
    fn distinct_consts_are_disjoint() {
        assert_eq!(
            pair(json!([{ "const": "a" }, { "const": "b" }, { "enum": ["c", "d"] }])),
            None
        );
        assert_eq!(
            pair(json!([{ "const": "a" }, { "enum": ["b", "a"] }])),
            Some((0, 1))
        );
    }

    #[test]
    fn a_distinct_required_tag_separates_objects() {
        let tagged = json!([
            { "type": "object", "properties": { "t": { "const": "x" } }, "required": ["t"] },
            { "type": "object", "properties": { "t": { "const": "y" }, "n": {} }, "required": ["t", "n"] }
        ]);
        assert_eq!(pair(tagged), None);
        let optional_tag = json!([
            { "type": "object", "properties": { "t": { "const": "x" } } },
            { "type": "object", "properties": { "t": { "const": "y" } } }
        ]);
        assert_eq!(pair(optional_tag), Some((0, 1)));
    }

    #[test]
    fn closed_objects_keyed_by_variant_are_disjoint() {
        let external = json!([
            { "type": "object", "properties": { "A": {} }, "required": ["A"], "additionalProperties": false },
            { "type": "object", "properties": { "B": {} }, "required": ["B"], "additionalProperties": false }
        ]);
        assert_eq!(pair(external), None);
        let open = json!([
            { "type": "object", "properties": { "A": {} }, "required": ["A"] },
            { "type": "object", "properties": { "B": {} }, "required": ["B"] }
        ]);
        assert_eq!(pair(open), Some((0, 1)));
    }

    #[test]
    fn untyped_alternatives_may_overlap() {
        assert_eq!(
            pair(json!([{ "minimum": 1 }, { "maximum": 5 }])),
            Some((0, 1))
        );
    }
}
