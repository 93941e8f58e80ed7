//! [`ToolArgument`]: what a model-filled tool parameter needs.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

/// A type the model can fill as a tool parameter: it has a JSON schema (schemars) and is
/// parsed from the model's JSON (serde).
///
/// Implemented for every `DeserializeOwned + JsonSchema` type; derive both on your own
/// argument types:
///
/// ```
/// use agentry::prelude::*;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Address {
///     street: String,
///     city: String,
/// }
///
/// /// Ship a parcel.
/// #[tool]
/// fn ship(to: Address) -> String {
///     format!("shipped to {}, {}", to.street, to.city)
/// }
/// # let _ = ship;
/// ```
///
/// `#[tool]` checks each model-filled parameter against this trait once, at the parameter's
/// type, so a missing derive is one error there:
///
/// ```compile_fail
/// use agentry::prelude::*;
///
/// struct Address {
///     street: String,
/// }
///
/// /// Ship a parcel.
/// #[tool]
/// fn ship(to: Address) -> String {
///     to.street
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: it needs `serde::Deserialize` and `schemars::JsonSchema`",
    label = "the model fills this parameter from JSON",
    note = "add `#[derive(serde::Deserialize, schemars::JsonSchema)]` to `{Self}`; if the runtime should fill this parameter instead, mark it `#[inject]` and implement `agentry::Inject` for it"
)]
pub trait ToolArgument: DeserializeOwned + JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ToolArgument for T {}

/// Checks, at the span of a tool parameter's type, that the model can fill it. Used by
/// `#[tool]`; public as `__private::tool_argument`.
pub const fn tool_argument<T: ToolArgument>() {}

/// The parse half of [`ToolArgument`], checked on its own so that a missing derive is named.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: it does not implement `serde::Deserialize`",
    label = "the model fills this parameter from JSON, parsed with serde",
    note = "add `#[derive(Deserialize)]` to `{Self}` (`use agentry::prelude::*` brings the derive); for a type of another crate, wrap it in a newtype of yours and derive on that; if the runtime should fill this parameter instead, mark it `#[inject]` and implement `agentry::Inject` for it"
)]
pub trait ArgumentParse {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> ArgumentParse for T {}

/// The schema half of [`ToolArgument`], checked on its own so that a missing derive is named.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: it does not implement `schemars::JsonSchema`",
    label = "the model is shown this parameter's JSON schema",
    note = "add `#[derive(JsonSchema)]` to `{Self}` (`use agentry::prelude::*` brings the derive); for a type of another crate, wrap it in a newtype of yours and derive on that (with `#[schemars(with = \"..\")]` on its field for a type without a schema); if the runtime should fill this parameter instead, mark it `#[inject]` and implement `agentry::Inject` for it"
)]
pub trait ArgumentSchema {}

#[diagnostic::do_not_recommend]
impl<T: JsonSchema> ArgumentSchema for T {}

/// Checks that a tool parameter's type can be parsed (one error naming `Deserialize`). Used
/// by `#[tool]`; public as `__private::tool_argument_parse`.
pub const fn tool_argument_parse<T: ArgumentParse>() {}

/// Checks that a tool parameter's type has a schema (one error naming `JsonSchema`). Used by
/// `#[tool]`; public as `__private::tool_argument_schema`.
pub const fn tool_argument_schema<T: ArgumentSchema>() {}
