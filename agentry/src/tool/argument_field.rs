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

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Deserializer;
use serde::de::DeserializeOwned;

use super::argument::ArgumentProbe;

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
