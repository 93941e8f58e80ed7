//! Checking one value against a compiled schema, keyword by keyword: the references, the
//! kind of value and the combinators here; each kind's own keywords in a file of its own.

mod array;
mod object;
mod scalar;

use serde_json::Value;

use super::equal::equal;
use super::node::{Node, NodeId, Rules};
use super::{Validator, Violation, ViolationKind};
use crate::http::status::truncate;

/// How many subschemas deep a check may go. A value parsed by serde_json nests at most 128
/// levels, and a schema at most 128 (else it does not compile).
const MAX_DEPTH: usize = 1024;

/// How many subschemas a check may enter without descending into the value (references and
/// combinators): a reference that loops (`{"$ref": "#"}`) stops here instead of overflowing
/// the stack.
const MAX_STALLED: usize = 128;

/// How deep a check is.
#[derive(Clone, Copy)]
pub(super) struct Depth {
    total: usize,
    /// Subschemas entered since the last descent into the value.
    stalled: usize,
}

impl Depth {
    pub(super) const ROOT: Depth = Depth {
        total: 0,
        stalled: 0,
    };

    /// Into a part of the value (a property, an element).
    fn descend(self) -> Depth {
        Depth {
            total: self.total + 1,
            stalled: 0,
        }
    }

    /// Into another subschema of the same value.
    fn step(self) -> Depth {
        Depth {
            total: self.total + 1,
            stalled: self.stalled + 1,
        }
    }

    fn too_deep(self) -> bool {
        self.total > MAX_DEPTH || self.stalled > MAX_STALLED
    }
}

/// How much of a value a message quotes, in bytes.
const SHOWN: usize = 120;

/// One check of one value: where it is and what failed so far.
pub(super) struct Run<'v> {
    validator: &'v Validator,
    /// Stop at the first violation (for [`Validator::is_valid`] and probes).
    first_only: bool,
    /// The JSON pointer of the value being checked.
    path: String,
    violations: Vec<Violation>,
}

impl<'v> Run<'v> {
    pub(super) fn new(validator: &'v Validator, first_only: bool) -> Self {
        Run {
            validator,
            first_only,
            path: String::new(),
            violations: Vec::new(),
        }
    }

    pub(super) fn into_violations(self) -> Vec<Violation> {
        self.violations
    }

    fn done(&self) -> bool {
        self.first_only && !self.violations.is_empty()
    }

    fn fail(&mut self, message: String) {
        self.fail_as(ViolationKind::Other, message);
    }

    fn fail_as(&mut self, kind: ViolationKind, message: String) {
        self.violations.push(Violation {
            instance_path: self.path.clone(),
            kind,
            message,
        });
    }

    /// Whether `value` satisfies the node `id`, recording nothing (for `anyOf`, `not`, `if`..).
    fn probe(&self, id: NodeId, value: &Value, depth: Depth) -> bool {
        Run::new(self.validator, true).schema(id, value, depth)
    }

    /// Checks `value` against the node `id`; whether it passed.
    pub(super) fn schema(&mut self, id: NodeId, value: &Value, depth: Depth) -> bool {
        let before = self.violations.len();
        match &self.validator.nodes[id] {
            Node::True => return true,
            Node::False => {
                self.fail(format!("False schema does not allow {}", shown(value)));
                return false;
            }
            Node::Rules(_) if depth.too_deep() => {
                self.fail(format!(
                    "the schema nests more than {MAX_STALLED} references or combinators without a step into the value, or schema and value nest more than {MAX_DEPTH} levels"
                ));
            }
            Node::Rules(rules) => self.rules(rules, value, depth),
        }
        self.violations.len() == before
    }

    fn rules(&mut self, rules: &Rules, value: &Value, depth: Depth) {
        for &target in &rules.refs {
            self.schema(target, value, depth.step());
            if self.done() {
                return;
            }
        }
        self.kind(rules, value);
        if self.done() {
            return;
        }
        match value {
            Value::Number(n) => self.number(rules, n),
            Value::String(s) => self.string(rules, s, value),
            Value::Array(items) => self.array(rules, items, value, depth),
            Value::Object(object) if rules.for_objects => self.object(rules, object, value, depth),
            Value::Object(_) => {}
            Value::Null | Value::Bool(_) => {}
        }
        if rules.combined && !self.done() {
            self.combinators(rules, value, depth);
        }
    }

    /// `type`, `enum` and `const`.
    fn kind(&mut self, rules: &Rules, value: &Value) {
        if let Some(types) = rules.types
            && !types.contains(value)
        {
            let names = types.names();
            let names: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
            let types = if names.len() == 1 { "type" } else { "types" };
            self.fail(format!(
                "{} is not of {types} {}",
                shown(value),
                names.join(", ")
            ));
        }
        if let Some(options) = &rules.enumeration
            && !options.iter().any(|option| equal(option, value))
        {
            self.fail(format!(
                "{} is not one of {}",
                shown(value),
                shown(&Value::Array(options.clone()))
            ));
        }
        if let Some(expected) = &rules.constant
            && !equal(expected, value)
        {
            self.fail(format!("{} was expected", shown(expected)));
        }
    }

    /// `minItems` / `maxItems` of an array, `minProperties` / `maxProperties` of an object:
    /// `size` of them, named `noun` (singular, plural).
    fn size(
        &mut self,
        value: &Value,
        size: usize,
        min: Option<u64>,
        max: Option<u64>,
        noun: (&str, &str),
    ) {
        let size = size as u64;
        let named = |n: u64| if n == 1 { noun.0 } else { noun.1 };
        if let Some(min) = min
            && size < min
        {
            self.fail(format!(
                "{} has less than {min} {}",
                shown(value),
                named(min)
            ));
        }
        if let Some(max) = max
            && size > max
        {
            self.fail(format!(
                "{} has more than {max} {}",
                shown(value),
                named(max)
            ));
        }
    }

    /// `allOf`, `anyOf`, `oneOf`, `not`, `if` / `then` / `else`.
    fn combinators(&mut self, rules: &Rules, value: &Value, depth: Depth) {
        for &each in &rules.all_of {
            self.schema(each, value, depth.step());
            if self.done() {
                return;
            }
        }
        if !rules.any_of.is_empty()
            && !rules
                .any_of
                .iter()
                .any(|&each| self.probe(each, value, depth.step()))
        {
            self.fail(format!(
                "{} is not valid under any of the schemas listed in the 'anyOf' keyword",
                shown(value)
            ));
        }
        if !rules.one_of.is_empty() {
            let passing = rules
                .one_of
                .iter()
                .filter(|&&each| self.probe(each, value, depth.step()))
                .take(2)
                .count();
            match passing {
                0 => self.fail(format!(
                    "{} is not valid under any of the schemas listed in the 'oneOf' keyword",
                    shown(value)
                )),
                1 => {}
                _ => self.fail(format!(
                    "{} is valid under more than one of the schemas listed in the 'oneOf' keyword",
                    shown(value)
                )),
            }
        }
        if let Some(not) = rules.not
            && self.probe(not, value, depth.step())
        {
            self.fail(format!(
                "{} is not allowed: it is valid under the schema in the 'not' keyword",
                shown(value)
            ));
        }
        if let Some((condition, then, otherwise)) = rules.condition {
            let branch = if self.probe(condition, value, depth.step()) {
                then
            } else {
                otherwise
            };
            if let Some(branch) = branch {
                self.schema(branch, value, depth.step());
            }
        }
    }
}

/// `value` as a message quotes it: its JSON, cut after [`SHOWN`] bytes.
fn shown(value: &Value) -> String {
    truncate(&value.to_string(), SHOWN)
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}
