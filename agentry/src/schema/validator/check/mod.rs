//! Checking one value against a compiled schema, keyword by keyword: the references, the
//! kind of value and the combinators here; each kind's own keywords in a file of its own.

mod array;
mod object;
mod scalar;

use serde_json::{Map, Value};

use super::compile::target;
use super::equal::{equal, is_integral};
use super::{Validator, Violation, ViolationKind};
use crate::schema::walk::type_names;

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

/// How much of a value a message quotes.
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

    /// Whether `value` satisfies `schema`, recording nothing (for `anyOf`, `not`, `if`..).
    fn probe(&self, schema: &Value, value: &Value, depth: Depth) -> bool {
        Run::new(self.validator, true).schema(schema, value, depth)
    }

    /// Checks `value` against `schema`; whether it passed.
    pub(super) fn schema(&mut self, schema: &Value, value: &Value, depth: Depth) -> bool {
        let before = self.violations.len();
        match schema {
            Value::Bool(true) => return true,
            Value::Bool(false) => {
                self.fail(format!("False schema does not allow {}", shown(value)));
                return false;
            }
            Value::Object(_) if depth.too_deep() => {
                self.fail(format!(
                    "the schema nests more than {MAX_STALLED} references or combinators without a step into the value, or schema and value nest more than {MAX_DEPTH} levels"
                ));
            }
            Value::Object(schema) => self.keywords(schema, value, depth),
            // Not a schema: `Validator::new` refused it.
            _ => {}
        }
        self.violations.len() == before
    }

    fn keywords(&mut self, schema: &Map<String, Value>, value: &Value, depth: Depth) {
        for keyword in ["$ref", "$dynamicRef", "$recursiveRef"] {
            if let Some(Value::String(reference)) = schema.get(keyword)
                && let Some(node) = target(&self.validator.root, &self.validator.anchors, reference)
            {
                self.schema(node, value, depth.step());
                if self.done() {
                    return;
                }
            }
        }
        self.kind(schema, value);
        if self.done() {
            return;
        }
        match value {
            Value::Number(n) => self.number(schema, n),
            Value::String(s) => self.string(schema, s, value),
            Value::Array(items) => self.array(schema, items, value, depth),
            Value::Object(object) => self.object(schema, object, value, depth),
            Value::Null | Value::Bool(_) => {}
        }
        if self.done() {
            return;
        }
        self.combinators(schema, value, depth);
    }

    /// `type`, `enum` and `const`.
    fn kind(&mut self, schema: &Map<String, Value>, value: &Value) {
        if let Some(names) = schema.get("type").and_then(type_names)
            && !names.iter().any(|name| is_type(value, name))
        {
            let names: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
            let types = if names.len() == 1 { "type" } else { "types" };
            self.fail(format!(
                "{} is not of {types} {}",
                shown(value),
                names.join(", ")
            ));
        }
        if let Some(Value::Array(options)) = schema.get("enum")
            && !options.iter().any(|option| equal(option, value))
        {
            self.fail(format!(
                "{} is not one of {}",
                shown(value),
                shown(&Value::Array(options.clone()))
            ));
        }
        if let Some(expected) = schema.get("const")
            && !equal(expected, value)
        {
            self.fail(format!("{} was expected", shown(expected)));
        }
    }

    /// `allOf`, `anyOf`, `oneOf`, `not`, `if` / `then` / `else`.
    fn combinators(&mut self, schema: &Map<String, Value>, value: &Value, depth: Depth) {
        if let Some(Value::Array(all)) = schema.get("allOf") {
            for each in all {
                self.schema(each, value, depth.step());
                if self.done() {
                    return;
                }
            }
        }
        if let Some(Value::Array(any)) = schema.get("anyOf")
            && !any.iter().any(|each| self.probe(each, value, depth.step()))
        {
            self.fail(format!(
                "{} is not valid under any of the schemas listed in the 'anyOf' keyword",
                shown(value)
            ));
        }
        if let Some(Value::Array(one)) = schema.get("oneOf") {
            let passing = one
                .iter()
                .filter(|each| self.probe(each, value, depth.step()))
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
        if let Some(not) = schema.get("not")
            && self.probe(not, value, depth.step())
        {
            self.fail(format!(
                "{} is not allowed for {}",
                shown(not),
                shown(value)
            ));
        }
        if let Some(condition) = schema.get("if") {
            let branch = if self.probe(condition, value, depth.step()) {
                schema.get("then")
            } else {
                schema.get("else")
            };
            if let Some(branch) = branch {
                self.schema(branch, value, depth.step());
            }
        }
    }
}

/// Whether `value` is of the JSON Schema type `name`.
fn is_type(value: &Value, name: &str) -> bool {
    match (name, value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("number", Value::Number(_))
        | ("string", Value::String(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_)) => true,
        ("integer", Value::Number(n)) => is_integral(n),
        _ => false,
    }
}

/// `value` as a message quotes it: its JSON, cut after [`SHOWN`] characters.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn ies(n: u64) -> &'static str {
    if n == 1 { "y" } else { "ies" }
}
