//! Support code for `#[derive(StructuredOutput)]` expansions. Not a public API.
//!
//! Re-exported from `agentry::__private`.

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::structured::{SchemaPatch, StructuredOutput};
use super::validate::{LengthKind, Validation};

pub use super::typed_partial::{check_complete, complete, open_member};
pub use super::validate::{check_custom, check_length, check_pattern, check_range};
pub use regex::Regex;

/// Type-checks, at the span of the user's type, that it can be deserialized.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a structured output: it does not implement `Deserialize`",
    label = "add `#[derive(Deserialize)]` to this type",
    note = "the model's JSON answer is parsed with serde: derive `Deserialize, JsonSchema, StructuredOutput` together"
)]
pub trait OutputDeserialize {}
impl<T: DeserializeOwned> OutputDeserialize for T {}

/// Type-checks, at the span of the user's type, that it has a JSON schema.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a structured output: it does not implement `JsonSchema`",
    label = "add `#[derive(JsonSchema)]` to this type",
    note = "the schema sent to the model comes from schemars: derive `Deserialize, JsonSchema, StructuredOutput` together"
)]
pub trait OutputJsonSchema {}
impl<T: JsonSchema> OutputJsonSchema for T {}

/// Checks that a field's type has a typed partial, where the field's type is written: `T` is
/// what [`TypeProbe`]'s `field_type` picks.
pub fn assert_has_partial<T: crate::output::HasPartial + ?Sized>(_: PhantomData<fn() -> Box<T>>) {}

// `(&&TypeProbe::<T>::new()).field_type()` picks, by auto-ref, the type whose typed partial a
// field needs: the field's own type when it has a JSON schema ([`PartialOfSchema`]), else
// `String` ([`PartialWithoutSchema`]): a field type without a schema is reported once, by
// schemars, and asking it for a partial too would be a second error about the same derive.

/// Chosen first: a field type with a schema, which needs a partial.
pub trait PartialOfSchema<T: ?Sized> {
    /// `T` itself.
    fn field_type(&self) -> PhantomData<fn() -> Box<T>>;
}

impl<T: JsonSchema + ?Sized> PartialOfSchema<T> for &TypeProbe<T> {
    fn field_type(&self) -> PhantomData<fn() -> Box<T>> {
        PhantomData
    }
}

/// Chosen for a field type without a schema: a stand-in with a partial.
pub trait PartialWithoutSchema {
    /// `String`.
    fn field_type(&self) -> PhantomData<fn() -> Box<String>> {
        PhantomData
    }
}

impl<T: ?Sized> PartialWithoutSchema for TypeProbe<T> {}

/// Checks that a derived output can cross threads (`Send + 'static`, which `StructuredOutput`
/// asks); the companion derives are checked through `BoundsProbe`.
pub const fn assert_output_send<T: Send + 'static>() {}

/// Wraps a field value to pick, by auto-ref, nested validation when the field's type is a
/// structured output and nothing otherwise.
pub struct Probe<'a, T: ?Sized>(pub &'a T);

/// Chosen when the probed value is a structured output.
pub trait ViaOutput {
    /// Validates the nested value.
    fn output_validate(&self, v: &mut Validation);
}
impl<T: StructuredOutput> ViaOutput for Probe<'_, T> {
    fn output_validate(&self, v: &mut Validation) {
        self.0.validate_into(v);
    }
}

/// Chosen for any other value: nothing to check.
pub trait ViaPlain {
    /// Does nothing.
    fn output_validate(&self, v: &mut Validation) {
        let _ = v;
    }
}
impl<T: ?Sized> ViaPlain for &Probe<'_, T> {}

/// Like [`Probe`], for a field's type (schema constraints).
pub struct TypeProbe<T: ?Sized>(PhantomData<fn() -> Box<T>>);

impl<T: ?Sized> TypeProbe<T> {
    /// A probe for `T`.
    pub const fn new() -> Self {
        TypeProbe(PhantomData)
    }
}

impl<T: ?Sized> Default for TypeProbe<T> {
    fn default() -> Self {
        TypeProbe::new()
    }
}

/// Chosen when the probed type is a structured output.
pub trait ViaOutputType {
    /// Adds the nested type's constraints to its schema node.
    fn output_patch(&self, node: &mut Value, patch: &mut SchemaPatch);
    /// Adds the nested type's constraints to its definition, when it has one.
    fn output_patch_def(&self, patch: &mut SchemaPatch);
}
impl<T: StructuredOutput> ViaOutputType for TypeProbe<T> {
    fn output_patch(&self, node: &mut Value, patch: &mut SchemaPatch) {
        patch.node::<T>(node);
    }
    fn output_patch_def(&self, patch: &mut SchemaPatch) {
        patch.def::<T>();
    }
}

/// Chosen for any other type: nothing to add.
pub trait ViaPlainType {
    /// Does nothing.
    fn output_patch(&self, node: &mut Value, patch: &mut SchemaPatch) {
        let _ = (node, patch);
    }
    /// Does nothing.
    fn output_patch_def(&self, patch: &mut SchemaPatch) {
        let _ = patch;
    }
}
impl<T: ?Sized> ViaPlainType for &TypeProbe<T> {}

/// The schema of property `name` of an object schema.
pub fn property<'a>(schema: &'a mut Value, name: &str) -> Option<&'a mut Value> {
    schema.get_mut("properties")?.get_mut(name)
}

/// Adds `minimum`/`maximum`, keeping a tighter bound schemars already wrote (e.g. `u8`'s).
pub fn add_range(node: &mut Value, min: Option<f64>, max: Option<f64>) {
    let Some(map) = node.as_object_mut() else {
        return;
    };
    if let Some(min) = min {
        let old = map.get("minimum").and_then(Value::as_f64);
        if old.is_none_or(|old| min > old) {
            map.insert("minimum".into(), number(min));
        }
    }
    if let Some(max) = max {
        let old = map.get("maximum").and_then(Value::as_f64);
        if old.is_none_or(|old| max < old) {
            map.insert("maximum".into(), number(max));
        }
    }
}

/// Adds the length keywords that fit the node's type (`minLength` for strings, `minItems` for
/// arrays, `minProperties` for objects); the field's type was checked by `check_length`.
pub fn add_length(node: &mut Value, min: Option<usize>, max: Option<usize>) {
    let has = |t: &str| match node.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(types)) => types.iter().any(|x| x == t),
        _ => false,
    };
    let kind = if has("string") {
        LengthKind::Chars
    } else if has("array") {
        LengthKind::Items
    } else if has("object") {
        LengthKind::Properties
    } else {
        return;
    };
    let Some(map) = node.as_object_mut() else {
        return;
    };
    let (min_kw, max_kw) = kind.keywords();
    if let Some(min) = min {
        map.insert(min_kw.into(), Value::from(min));
    }
    if let Some(max) = max {
        map.insert(max_kw.into(), Value::from(max));
    }
}

/// Adds `pattern`.
pub fn add_pattern(node: &mut Value, pattern: &str) {
    if let Some(map) = node.as_object_mut() {
        map.insert("pattern".into(), Value::from(pattern));
    }
}

/// Adds a description to a schema that has none (schemars already copies doc comments).
pub fn add_description(node: &mut Value, description: &str) {
    if let Some(map) = node.as_object_mut() {
        map.entry("description")
            .or_insert_with(|| Value::from(description));
    }
}

/// Compiles a pattern once per call site. The derive checked its syntax at compile time with
/// the parser `regex` uses, so compiling it cannot fail.
pub fn cached_regex(cell: &'static std::sync::OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| {
        Regex::new(pattern)
            .expect("#[derive(StructuredOutput)] checked this pattern at compile time")
    })
}

fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}
