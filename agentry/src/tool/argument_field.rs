//! How the `Args` struct `#[tool]` generates parses and describes a parameter whose type the
//! macro cannot vouch for (anything but `String`, `bool` and the numbers).
//!
//! The struct's field goes through `(&&ArgumentProbe::<T>::new()).parse_field(..)` and
//! `.field_schema(..)`: by auto-ref these pick serde and schemars when `T` derives them, and
//! otherwise a fallback that refuses every value and describes nothing. So the struct (and the
//! tool around it) is well formed whatever `T` lacks, and the one compile error a missing
//! derive causes is the check `#[tool]` makes at the parameter's type (see `ArgumentProbe`),
//! not a second one wherever an agent lists the tool. A program that would use a fallback
//! never compiles, so the fallbacks never run; if they did, they would fail the call with a
//! parse error, never panic.

use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Deserializer;
use serde::de::DeserializeOwned;

use super::ToolArgument;
use super::argument::{ArgumentParse, ArgumentProbe};

/// Chosen first: a type serde parses.
pub trait ParseFieldOk<T> {
    /// Parses the field with `T`'s own `Deserialize`.
    fn parse_field<'de, D: Deserializer<'de>>(&self, deserializer: D) -> Result<T, D::Error>;
}

impl<T: DeserializeOwned> ParseFieldOk<T> for &ArgumentProbe<T> {
    fn parse_field<'de, D: Deserializer<'de>>(&self, deserializer: D) -> Result<T, D::Error> {
        T::deserialize(deserializer)
    }
}

/// Chosen otherwise: a type without `Deserialize` (a program that never compiles).
pub trait ParseFieldFallback<T> {
    /// Refuses every value.
    fn parse_field<'de, D: Deserializer<'de>>(&self, deserializer: D) -> Result<T, D::Error>;
}

impl<T> ParseFieldFallback<T> for ArgumentProbe<T> {
    fn parse_field<'de, D: Deserializer<'de>>(&self, _deserializer: D) -> Result<T, D::Error> {
        Err(serde::de::Error::custom(
            "this argument's type does not implement `Deserialize`",
        ))
    }
}

/// Chosen first: a type with a schema.
pub trait FieldSchemaOk {
    /// The field's schema, as schemars' derive would give it.
    fn field_schema(&self, generator: &mut SchemaGenerator) -> Schema;
}

impl<T: JsonSchema> FieldSchemaOk for &ArgumentProbe<T> {
    fn field_schema(&self, generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<T>()
    }
}

/// Chosen otherwise: a type without `JsonSchema` (a program that never compiles).
pub trait FieldSchemaFallback {
    /// The schema every value matches.
    fn field_schema(&self, generator: &mut SchemaGenerator) -> Schema;
}

impl<T> FieldSchemaFallback for ArgumentProbe<T> {
    fn field_schema(&self, _generator: &mut SchemaGenerator) -> Schema {
        Schema::default()
    }
}

/// Checks a parameter's whole type after `#[tool]` checked the item inside it (`Stop` of a
/// `Vec<Stop>`, named in the error a missing derive gets). When the item is a tool argument,
/// `(&&ContainerProbe::<Item, Whole>::new()).container_check().check()` asks the same of the
/// whole type, so a container the macro took for a standard one by its name (a type of the
/// user's called `Vec`) cannot leave a field that never parses or has no schema; when the
/// item is not, the item's error is the one reported. For a parameter with its own schema,
/// `container_parse_check` asks only `Deserialize`, of the item and then of the whole type.
pub struct ContainerProbe<I, W>(PhantomData<fn() -> (I, W)>);

impl<I, W> ContainerProbe<I, W> {
    /// A probe for the item `I` of `W`.
    pub const fn new() -> Self {
        ContainerProbe(PhantomData)
    }
}

impl<I, W> Default for ContainerProbe<I, W> {
    fn default() -> Self {
        ContainerProbe::new()
    }
}

/// Chosen first: the item is a tool argument (or parses, for `container_parse_check`), so
/// the whole type is checked.
pub trait ContainerItemOk<W> {
    /// The check of the whole type as a tool argument.
    fn container_check(&self) -> WholeCheck<W>;
}

impl<I: DeserializeOwned + JsonSchema, W> ContainerItemOk<W> for &ContainerProbe<I, W> {
    fn container_check(&self) -> WholeCheck<W> {
        WholeCheck(PhantomData)
    }
}

/// Like [`ContainerItemOk`], for a parameter with its own schema.
pub trait ContainerItemParses<W> {
    /// The check that the whole type parses.
    fn container_parse_check(&self) -> WholeParseCheck<W>;
}

impl<I: DeserializeOwned, W> ContainerItemParses<W> for &ContainerProbe<I, W> {
    fn container_parse_check(&self) -> WholeParseCheck<W> {
        WholeParseCheck(PhantomData)
    }
}

/// Chosen otherwise: the item's own check reports it.
pub trait ContainerItemMissing {
    /// Nothing more to report.
    fn container_check(&self) -> ItemReported;
    /// Nothing more to report.
    fn container_parse_check(&self) -> ItemReported;
}

impl<I, W> ContainerItemMissing for ContainerProbe<I, W> {
    fn container_check(&self) -> ItemReported {
        ItemReported
    }
    fn container_parse_check(&self) -> ItemReported {
        ItemReported
    }
}

/// Asks of a parameter's whole type to be a tool argument.
pub struct WholeCheck<W>(PhantomData<fn() -> W>);

impl<W> WholeCheck<W> {
    /// Reports a whole type that is not a tool argument.
    pub fn check(self)
    where
        W: ToolArgument,
    {
    }
}

/// Asks of a parameter's whole type to parse.
pub struct WholeParseCheck<W>(PhantomData<fn() -> W>);

impl<W> WholeParseCheck<W> {
    /// Reports a whole type that does not parse.
    pub fn check(self)
    where
        W: ArgumentParse,
    {
    }
}

/// The item's check reported what it lacks.
pub struct ItemReported;

impl ItemReported {
    /// Nothing more to report.
    pub fn check(self) {}
}

#[cfg(test)]
// The borrows are the point: they pick the impl, as the generated code's do.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, JsonSchema, Debug, PartialEq)]
    struct Point {
        x: i32,
    }

    struct Opaque;

    #[test]
    fn a_derived_type_parses_and_is_described_by_its_derives() {
        let mut value = serde_json::json!({ "x": 3 });
        let parsed = (&&ArgumentProbe::<Point>::new()).parse_field(value.take());
        assert_eq!(parsed.unwrap(), Point { x: 3 });
        let mut generator = SchemaGenerator::default();
        let schema = (&&ArgumentProbe::<Point>::new()).field_schema(&mut generator);
        assert_eq!(schema.as_value()["$ref"], "#/$defs/Point");
    }

    #[test]
    fn a_type_without_derives_is_refused_and_described_by_nothing() {
        let parsed = (&&ArgumentProbe::<Opaque>::new()).parse_field(serde_json::json!({}));
        let error = parsed
            .err()
            .expect("a type without Deserialize parses nothing");
        assert!(
            error
                .to_string()
                .contains("does not implement `Deserialize`")
        );
        let mut generator = SchemaGenerator::default();
        let schema = (&&ArgumentProbe::<Opaque>::new()).field_schema(&mut generator);
        assert_eq!(schema, Schema::default());
    }
}
