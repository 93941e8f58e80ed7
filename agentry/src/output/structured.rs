//! The [`StructuredOutput`] trait: a type a model can be asked to produce.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::validate::{Validation, ValidationError};
use crate::schema::canonical_schema_for;

/// A type a model can be asked to produce: its schema (with constraints), a name and
/// description for the provider, and the run-time checks applied after parsing.
///
/// Derive it with `#[derive(Deserialize, JsonSchema, StructuredOutput)]`:
///
/// ```
/// use agentry::output::{StructuredOutput, output_schema};
/// use agentry::prelude::{Deserialize, JsonSchema};
///
/// /// A film recommendation.
/// #[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
/// struct Movie {
///     /// The title.
///     #[output(length(min = 1, max = 200))]
///     title: String,
///     /// Out of ten.
///     #[output(range(min = 0, max = 10))]
///     rating: f32,
/// }
///
/// let schema = output_schema::<Movie>();
/// assert_eq!(schema["properties"]["rating"]["maximum"], 10.0);
/// let movie: Movie = serde_json::from_str(r#"{"title": "Alien", "rating": 11}"#).unwrap();
/// let err = movie.validate().unwrap_err();
/// assert_eq!(err.to_string(), "at `$.rating`: 11 is greater than the maximum 10");
/// ```
///
/// It is also implemented for `String`, `bool` and the number types, and for `Vec<T>`,
/// `Option<T>`, `Box<T>` and string-keyed maps of structured outputs.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a structured output",
    label = "not a structured output",
    note = "add `#[derive(Deserialize, JsonSchema, StructuredOutput)]` to the definition of `{Self}`"
)]
pub trait StructuredOutput: DeserializeOwned + JsonSchema + Send + 'static {
    /// [`output_name`](Self::output_name) when it is known at compile time (set by the
    /// derive), so `#[agent]` can refuse an output named like one of its tools.
    #[doc(hidden)]
    const OUTPUT_NAME: Option<&'static str> = None;

    /// The name given to the provider (response-format name, final-answer tool name):
    /// letters, digits, `_` and `-` only.
    fn output_name() -> Cow<'static, str> {
        sanitize_name(&Self::schema_name())
    }

    /// What the output is, for the provider; the type's doc comment when derived.
    fn output_description() -> Option<Cow<'static, str>> {
        None
    }

    /// Adds the type's constraints (`minimum`, `maxLength`, `pattern`, ...) to `schema`, this
    /// type's own schema node, and to the definitions of the types it contains.
    fn add_constraints(schema: &mut Value, patch: &mut SchemaPatch) {
        let _ = (schema, patch);
    }

    /// Runs the type's constraints and custom validators, recording failures in `v`.
    fn validate_into(&self, v: &mut Validation) {
        let _ = v;
    }

    /// Checks a parsed value: every failure, each with its JSON path.
    fn validate(&self) -> Result<(), ValidationError> {
        let mut v = Validation::new();
        self.validate_into(&mut v);
        v.finish()
    }
}

/// The schema of `T` as sent to a model: the canonical schema with `T`'s constraints (and
/// those of the structured outputs it contains) added.
pub fn output_schema<T: StructuredOutput>() -> Value {
    let mut root = canonical_schema_for::<T>();
    let defs = match root.as_object_mut().and_then(|m| m.remove("$defs")) {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    };
    let mut patch = SchemaPatch {
        defs,
        done: BTreeSet::new(),
    };
    T::add_constraints(&mut root, &mut patch);
    if !patch.defs.is_empty()
        && let Value::Object(map) = &mut root
    {
        map.insert("$defs".into(), Value::Object(patch.defs));
    }
    root
}

/// The definitions (`$defs`) of a schema being constrained, each patched at most once.
#[derive(Debug)]
pub struct SchemaPatch {
    defs: Map<String, Value>,
    done: BTreeSet<String>,
}

impl SchemaPatch {
    /// Adds `T`'s constraints to `node`, the schema of a `T` value: to the definition it
    /// refers to when it is a `$ref`, else to the node itself.
    pub fn node<T: StructuredOutput>(&mut self, node: &mut Value) {
        let target = node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .map(|name| name.replace("~1", "/").replace("~0", "~"));
        match target {
            Some(name) => {
                if !self.done.insert(name.clone()) {
                    return;
                }
                if let Some(mut def) = self.defs.remove(&name) {
                    T::add_constraints(&mut def, self);
                    self.defs.insert(name, def);
                }
            }
            None => T::add_constraints(node, self),
        }
    }
}

impl SchemaPatch {
    /// Adds `T`'s constraints to its definition in `$defs`, when it has one.
    pub fn def<T: StructuredOutput>(&mut self) {
        let name = T::schema_name().into_owned();
        if !self.done.insert(name.clone()) {
            return;
        }
        if let Some(mut def) = self.defs.remove(&name) {
            T::add_constraints(&mut def, self);
            self.defs.insert(name, def);
        }
    }
}

/// Replaces characters providers refuse in names with `_`.
pub(crate) fn sanitize_name(name: &str) -> Cow<'static, str> {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    out.truncate(64);
    if out.is_empty() {
        out.push_str("output");
    }
    Cow::Owned(out)
}

impl<T: StructuredOutput> StructuredOutput for Vec<T> {
    fn output_name() -> Cow<'static, str> {
        let mut name = T::output_name().into_owned();
        name.push_str("_list");
        sanitize_name(&name)
    }

    fn add_constraints(schema: &mut Value, patch: &mut SchemaPatch) {
        if let Some(items) = schema.get_mut("items") {
            patch.node::<T>(items);
        }
    }

    fn validate_into(&self, v: &mut Validation) {
        for (i, item) in self.iter().enumerate() {
            v.index(i, |v| item.validate_into(v));
        }
    }
}

impl<T: StructuredOutput> StructuredOutput for Option<T> {
    fn output_name() -> Cow<'static, str> {
        T::output_name()
    }

    fn output_description() -> Option<Cow<'static, str>> {
        T::output_description()
    }

    fn add_constraints(schema: &mut Value, patch: &mut SchemaPatch) {
        // schemars writes `Option<T>` as `anyOf: [T, null]`, or (for simple T) as T's own
        // schema with `null` added to its type.
        let any_of = schema.get_mut("anyOf").and_then(Value::as_array_mut);
        match any_of {
            Some(branches) => {
                for branch in branches {
                    if branch.get("type") != Some(&Value::from("null")) {
                        patch.node::<T>(branch);
                    }
                }
            }
            None => patch.node::<T>(schema),
        }
    }

    fn validate_into(&self, v: &mut Validation) {
        if let Some(value) = self {
            value.validate_into(v);
        }
    }
}

impl<T: StructuredOutput> StructuredOutput for Box<T> {
    fn output_name() -> Cow<'static, str> {
        T::output_name()
    }

    fn output_description() -> Option<Cow<'static, str>> {
        T::output_description()
    }

    fn add_constraints(schema: &mut Value, patch: &mut SchemaPatch) {
        patch.node::<T>(schema);
    }

    fn validate_into(&self, v: &mut Validation) {
        (**self).validate_into(v);
    }
}

macro_rules! map_outputs {
    ($($map:ident),*) => {$(
        impl<T: StructuredOutput> StructuredOutput for $map<String, T> {
            fn add_constraints(schema: &mut Value, patch: &mut SchemaPatch) {
                if let Some(values) = schema.get_mut("additionalProperties")
                    && values.is_object()
                {
                    patch.node::<T>(values);
                }
            }

            fn validate_into(&self, v: &mut Validation) {
                for (key, value) in self {
                    v.field(key, |v| value.validate_into(v));
                }
            }
        }
    )*};
}
map_outputs!(BTreeMap, HashMap);

macro_rules! plain_outputs {
    ($($t:ty),*) => {$(
        /// A plain value: no constraints of its own.
        impl StructuredOutput for $t {}
    )*};
}
plain_outputs!(
    String, bool, char, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
);
