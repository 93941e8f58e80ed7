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
