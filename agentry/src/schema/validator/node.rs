//! A compiled schema: one [`Node`] per subschema, each keyword read once into a field, and
//! every reference resolved to the node it points at (so a recursive schema is a cycle of
//! indices, not a lookup per visit).

use regex::Regex;
use serde_json::{Number, Value};

/// A node's index in [`Validator`](super::Validator)'s node list.
pub(super) type NodeId = usize;

/// A set of JSON Schema types, one bit each.
#[derive(Clone, Copy)]
pub(super) struct TypeSet(u8);

impl TypeSet {
    const NAMES: [&'static str; 7] = [
        "null", "boolean", "object", "array", "number", "string", "integer",
    ];

    /// The set of `names` (each one of [`TypeSet::NAMES`]; others are left out).
    pub(super) fn of(names: &[&str]) -> TypeSet {
        let bits = names
            .iter()
            .filter_map(|name| Self::NAMES.iter().position(|known| known == name))
            .fold(0, |bits, i| bits | 1 << i);
        TypeSet(bits)
    }

    /// The types' names, in [`TypeSet::NAMES`]' order (for messages).
    pub(super) fn names(self) -> Vec<&'static str> {
        (0..Self::NAMES.len())
            .filter(|i| self.0 & (1 << i) != 0)
            .map(|i| Self::NAMES[i])
            .collect()
    }

    /// Whether `value` is of one of the types.
    pub(super) fn contains(self, value: &Value) -> bool {
        let bit = match value {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Object(_) => 2,
            Value::Array(_) => 3,
            Value::String(_) => 5,
            Value::Number(n) => {
                // A number is an `integer` too when it has no fraction.
                return self.0 & (1 << 4) != 0
                    || (self.0 & (1 << 6) != 0 && super::equal::is_integral(n));
            }
        };
        self.0 & (1 << bit) != 0
    }
}

/// One subschema.
pub(super) enum Node {
    /// `true`, or `{}`: every value.
    True,
    /// `false`: no value.
    False,
    /// An object schema's rules.
    Rules(Box<Rules>),
}

/// The keywords of one object schema, as the checks read them. Absent keywords are `None`
/// or empty.
#[derive(Default)]
pub(super) struct Rules {
    /// `$ref`, `$dynamicRef`, `$recursiveRef`: the nodes they point at.
    pub(super) refs: Vec<NodeId>,
    /// `type`: the allowed types.
    pub(super) types: Option<TypeSet>,
    pub(super) enumeration: Option<Vec<Value>>,
    pub(super) constant: Option<Value>,

    /// `minimum` and whether draft-04's `exclusiveMinimum: true` makes it exclusive.
    pub(super) minimum: Option<(Number, bool)>,
    pub(super) maximum: Option<(Number, bool)>,
    pub(super) exclusive_minimum: Option<Number>,
    pub(super) exclusive_maximum: Option<Number>,
    pub(super) multiple_of: Option<Number>,

    pub(super) min_length: Option<u64>,
    pub(super) max_length: Option<u64>,
    /// `pattern`, when the `regex` crate compiles it (one it cannot is not enforced).
    pub(super) pattern: Option<(String, Regex)>,

    pub(super) min_items: Option<u64>,
    pub(super) max_items: Option<u64>,
    pub(super) unique_items: bool,
    /// `prefixItems` (or draft-07's array form of `items`), by position.
    pub(super) prefix_items: Vec<NodeId>,
    /// `items` after the prefix (or draft-07's `additionalItems`).
    pub(super) items: Option<NodeId>,
    pub(super) contains: Option<NodeId>,
    pub(super) min_contains: Option<u64>,
    pub(super) max_contains: Option<u64>,

    /// `properties`, in the schema's order.
    pub(super) properties: Vec<(String, NodeId)>,
    /// With many properties, their indices sorted by name (to find one by binary search).
    pub(super) properties_sorted: Vec<usize>,
    pub(super) pattern_properties: Vec<(Regex, NodeId)>,
    /// A `patternProperties` key the `regex` crate cannot compile: no property counts as
    /// additional then (nothing is refused that the schema may allow).
    pub(super) unknown_pattern: bool,
    pub(super) additional_properties: Option<NodeId>,
    pub(super) required: Vec<String>,
    /// For each required name, its index in `properties` (if it is one).
    pub(super) required_index: Vec<Option<usize>>,
    pub(super) min_properties: Option<u64>,
    pub(super) max_properties: Option<u64>,
    pub(super) property_names: Option<NodeId>,
    /// `dependentRequired` and draft-07's `dependencies` with an array.
    pub(super) dependent_required: Vec<(String, Vec<String>)>,
    /// `dependentSchemas` and draft-07's `dependencies` with a schema.
    pub(super) dependent_schemas: Vec<(String, NodeId)>,

    pub(super) all_of: Vec<NodeId>,
    pub(super) any_of: Vec<NodeId>,
    pub(super) one_of: Vec<NodeId>,
    pub(super) not: Option<NodeId>,
    /// `if`, with `then` and `else`.
    pub(super) condition: Option<(NodeId, Option<NodeId>, Option<NodeId>)>,

    /// Whether any keyword above applies to objects (most schemas of other values, and a
    /// bare `$ref`, have none: their objects skip the object checks).
    pub(super) for_objects: bool,
    /// Whether `allOf`, `anyOf`, `oneOf`, `not` or `if` is present.
    pub(super) combined: bool,
}

/// How many properties a linear search goes through before a sorted index is kept.
const LINEAR: usize = 16;

impl Rules {
    /// Fills the indices [`Rules::property`] and the required check read.
    pub(super) fn index(&mut self) {
        if self.properties.len() > LINEAR {
            let mut sorted: Vec<usize> = (0..self.properties.len()).collect();
            sorted.sort_by(|&a, &b| self.properties[a].0.cmp(&self.properties[b].0));
            self.properties_sorted = sorted;
        }
        self.for_objects = !self.properties.is_empty()
            || !self.pattern_properties.is_empty()
            || self.additional_properties.is_some()
            || !self.required.is_empty()
            || self.min_properties.is_some()
            || self.max_properties.is_some()
            || self.property_names.is_some()
            || !self.dependent_required.is_empty()
            || !self.dependent_schemas.is_empty();
        self.combined = !self.all_of.is_empty()
            || !self.any_of.is_empty()
            || !self.one_of.is_empty()
            || self.not.is_some()
            || self.condition.is_some();
        self.required_index = self
            .required
            .iter()
            .map(|name| self.property(name))
            .collect();
    }

    /// The index in `properties` of the property `name`.
    pub(super) fn property(&self, name: &str) -> Option<usize> {
        if self.properties_sorted.is_empty() {
            self.properties.iter().position(|(known, _)| known == name)
        } else {
            self.properties_sorted
                .binary_search_by(|&i| self.properties[i].0.as_str().cmp(name))
                .ok()
                .map(|at| self.properties_sorted[at])
        }
    }
}
