//! Checking a JSON value against a JSON Schema: a dynamic tool's arguments, an MCP tool's
//! arguments, and a structured answer against the closed schema the provider was sent.
//!
//! This is the SDK's own validator, not the `jsonschema` crate. That crate and the 25 crates it
//! brings (a second regex engine, big-number arithmetic, URI and e-mail parsers) were a third of
//! what every program built on the SDK linked (a debug build links a dependency's objects
//! whenever the SDK's refer to them, called or not): 0.22 s of each rebuild (see the guide's
//! compile-time section). The
//! schemas checked here are tool parameters and answers, so the validator covers what those use:
//!
//! - draft 2020-12, and draft-07's forms (`items` as an array, `additionalItems`,
//!   `definitions`, `dependencies`, boolean `exclusiveMinimum`);
//! - local references (`#`, `#/$defs/Name`, any `#/json/pointer`, `#anchor`);
//! - `pattern` and `patternProperties` with the `regex` crate, whose matching takes linear
//!   time (a hostile pattern cannot stall a check). A pattern that crate cannot compile (a
//!   look-around, a back-reference) is not enforced, and says so in a warning;
//! - `format`, the `content*` keywords and `unevaluated*` are not asserted (2020-12 makes
//!   `format` an annotation by default), nor is any keyword the specification does not
//!   define.
//!
//! A schema that cannot be checked faithfully (a reference outside it, an unknown `type`) does
//! not compile: [`Validator::new`] returns the reason, and callers then check nothing rather
//! than refuse values the schema accepts.

mod check;
mod compile;
mod equal;
mod node;
#[cfg(test)]
mod tests;

use std::fmt;

use serde_json::Value;

/// A compiled schema.
pub(crate) struct Validator {
    /// Every subschema, the root's first.
    nodes: Vec<node::Node>,
}

impl fmt::Debug for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Validator")
            .field("nodes", &self.nodes.len())
            .finish()
    }
}

/// A schema [`Validator::new`] cannot check faithfully.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at `{pointer}` in the schema: {reason}")]
pub(crate) struct CompileError {
    /// The JSON pointer of the offending keyword in the schema.
    pub(crate) pointer: String,
    /// What is wrong.
    pub(crate) reason: String,
}

/// One way a value breaks the schema.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Violation {
    /// The JSON pointer of the offending value (`""` for the root, `/stops/0/name` below it).
    pub(crate) instance_path: String,
    /// What kind of rule it broke.
    pub(crate) kind: ViolationKind,
    /// What is wrong, in a sentence about the value.
    pub(crate) message: String,
}

/// The rules a caller tells apart; every other rule is [`ViolationKind::Other`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ViolationKind {
    /// An object has properties that `additionalProperties: false` forbids; the names, in the
    /// object's order.
    AdditionalProperties { unexpected: Vec<String> },
    /// Any other rule.
    Other,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Validator {
    /// Compiles `schema`: its references resolve, its keywords have the shapes the
    /// specification gives them, and its patterns are compiled once here.
    pub(crate) fn new(schema: &Value) -> Result<Validator, CompileError> {
        Ok(Validator {
            nodes: compile::compile(schema)?,
        })
    }

    /// Whether `value` satisfies the schema (stops at the first violation).
    pub(crate) fn is_valid(&self, value: &Value) -> bool {
        let mut run = check::Run::new(self, true);
        run.schema(0, value, check::Depth::ROOT)
    }

    /// Every violation of `value`: an object's properties first (in the object's order), then
    /// the object's own rules, so the deepest cause comes first.
    pub(crate) fn violations(&self, value: &Value) -> Vec<Violation> {
        let mut run = check::Run::new(self, false);
        run.schema(0, value, check::Depth::ROOT);
        run.into_violations()
    }
}
