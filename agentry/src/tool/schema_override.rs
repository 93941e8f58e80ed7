//! Schema overrides: `#[arg(schema_with = path)]` on a `#[tool]` parameter and
//! `#[tool(schema = path)]` on the tool, for the rare type whose derived schema is not what
//! the model should see.
//!
//! An override is a function `fn(&mut schemars::SchemaGenerator) -> schemars::Schema`, the
//! signature of schemars' own `#[schemars(schema_with = "..")]`. `#[tool]` passes it through
//! [`schema_with`], whose bound is the one place a wrong path or signature is reported.

use schemars::{Schema, SchemaGenerator};

/// A function that makes a JSON schema: `fn(&mut schemars::SchemaGenerator) ->
/// schemars::Schema`, what `#[arg(schema_with = ..)]` and `#[tool(schema = ..)]` name.
///
/// Implemented for every such function (and closure); never implement it by hand.
///
/// ```
/// use agentry::schemars::{Schema, SchemaGenerator, json_schema};
/// use agentry::tool::SchemaFn;
///
/// fn seconds(_: &mut SchemaGenerator) -> Schema {
///     json_schema!({ "type": "integer", "minimum": 0 })
/// }
///
/// let schema = seconds.make_schema(&mut SchemaGenerator::default());
/// assert_eq!(schema.get("type").unwrap(), "integer");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot override a schema: the override is a function `fn(&mut schemars::SchemaGenerator) -> schemars::Schema`",
    label = "not a `fn(&mut schemars::SchemaGenerator) -> schemars::Schema`",
    note = "write the function with that signature and name it here, e.g. `fn my_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {{ schemars::json_schema!({{ \"type\": \"string\" }}) }}` (`agentry::schemars` is schemars)"
)]
pub trait SchemaFn {
    /// Makes the schema.
    fn make_schema(self, generator: &mut SchemaGenerator) -> Schema;
}

#[diagnostic::do_not_recommend]
impl<F: FnOnce(&mut SchemaGenerator) -> Schema> SchemaFn for F {
    fn make_schema(self, generator: &mut SchemaGenerator) -> Schema {
        self(generator)
    }
}

/// Calls a schema override. Used by `#[tool]` (at the span of the path written in the
/// attribute, so that a wrong path or signature is one error there); public as
/// `__private::schema_with`.
pub fn schema_with<F: SchemaFn>(function: F, generator: &mut SchemaGenerator) -> Schema {
    function.make_schema(generator)
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::json_schema;

    #[test]
    fn a_function_and_a_closure_both_make_their_schema() {
        fn text(_: &mut SchemaGenerator) -> Schema {
            json_schema!({ "type": "string" })
        }
        let mut generator = SchemaGenerator::default();
        assert_eq!(
            schema_with(text, &mut generator).get("type").unwrap(),
            "string"
        );
        let by_closure = schema_with(
            |g: &mut SchemaGenerator| g.subschema_for::<u8>(),
            &mut generator,
        );
        assert_eq!(by_closure.get("type").unwrap(), "integer");
    }
}
