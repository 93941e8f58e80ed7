//! [`ToolArgument`]: what a model-filled tool parameter needs.

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

/// A type the model can fill as a tool parameter: it has a JSON schema (schemars) and is
/// parsed from the model's JSON (serde).
///
/// Implemented for every `DeserializeOwned + JsonSchema` type; derive both on your own
/// argument types (do not implement `ToolArgument` itself, which adds nothing):
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
    note = "add `#[derive(serde::Deserialize, schemars::JsonSchema)]` to `{Self}`; for a type of another crate, wrap it in a newtype of yours that derives both; if the runtime should fill this parameter instead, mark it `#[inject]` and implement `agentry::Inject` for it"
)]
pub trait ToolArgument: DeserializeOwned + JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ToolArgument for T {}

/// Checks, at the span of a tool parameter's type, that the model's JSON parses into it: for a
/// parameter whose schema is overridden (`#[arg(schema_with = ..)]`, `#[tool(schema = ..)]`),
/// which needs no `JsonSchema`. Used by `#[tool]`; public as `__private::argument`.
pub const fn parsed_argument<T: ArgumentParse>() {}

/// The parse half of [`ToolArgument`], checked on its own so that a missing derive is named.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: it does not implement `serde::Deserialize`",
    label = "the model fills this parameter from JSON, parsed with serde",
    note = "add `#[derive(Deserialize)]` to `{Self}` (`use agentry::prelude::*` brings the derive); for a type of another crate, wrap it in a newtype of yours and derive on that; if the runtime should fill this parameter instead, mark it `#[inject]` and implement `agentry::Inject` for it"
)]
pub trait ArgumentParse: DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> ArgumentParse for T {}

/// The schema half of [`ToolArgument`], checked on its own so that a missing derive is named.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool argument: it does not implement `schemars::JsonSchema`",
    label = "the model is shown this parameter's JSON schema",
    note = "add `#[derive(JsonSchema)]` to `{Self}` (`use agentry::prelude::*` brings the derive); for a type of another crate, write its schema in a function `fn(&mut schemars::SchemaGenerator) -> schemars::Schema` and mark the parameter `#[arg(schema_with = that_function)]`, or wrap the type in a newtype of yours and derive on that; if the runtime should fill this parameter instead, mark it `#[inject]` and implement `agentry::Inject` for it"
)]
pub trait ArgumentSchema {}

#[diagnostic::do_not_recommend]
impl<T: JsonSchema> ArgumentSchema for T {}

/// Probes a tool parameter's type, so that what it lacks is one error naming it:
/// `(&&&ArgumentProbe::<T>::new()).probe().check()` picks, by auto-ref, [`ArgumentOk`] for a
/// tool argument, [`MissingParse`] for a type with only a schema, [`MissingSchema`] for one
/// that only parses, and [`MissingBoth`] for anything else. Used by `#[tool]`; public under
/// `__private`.
pub struct ArgumentProbe<T>(PhantomData<fn() -> T>);

impl<T> ArgumentProbe<T> {
    /// A probe for `T`.
    pub const fn new() -> Self {
        ArgumentProbe(PhantomData)
    }
}

impl<T> Default for ArgumentProbe<T> {
    fn default() -> Self {
        ArgumentProbe::new()
    }
}

impl<T> Clone for ArgumentProbe<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ArgumentProbe<T> {}

/// Chosen first: a tool argument.
pub trait ProbeArgumentOk {
    /// Nothing missing.
    fn probe(&self) -> ArgumentOk;
}

impl<T: DeserializeOwned + JsonSchema> ProbeArgumentOk for &&ArgumentProbe<T> {
    fn probe(&self) -> ArgumentOk {
        ArgumentOk
    }
}

/// Chosen second: a type with a schema that does not parse.
pub trait ProbeMissingParse<T> {
    /// `Deserialize` missing.
    fn probe(&self) -> MissingParse<T>;
}

impl<T: JsonSchema> ProbeMissingParse<T> for &ArgumentProbe<T> {
    fn probe(&self) -> MissingParse<T> {
        MissingParse(PhantomData)
    }
}

/// Chosen third: a type that parses without a schema.
pub trait ProbeMissingSchema<T> {
    /// `JsonSchema` missing.
    fn probe(&self) -> MissingSchema<T>;
}

impl<T: DeserializeOwned> ProbeMissingSchema<T> for ArgumentProbe<T> {
    fn probe(&self) -> MissingSchema<T> {
        MissingSchema(PhantomData)
    }
}

/// Chosen last: a type with neither.
pub trait ProbeMissingBoth<T> {
    /// Both missing.
    fn probe(self) -> MissingBoth<T>;
}

impl<T> ProbeMissingBoth<T> for ArgumentProbe<T> {
    fn probe(self) -> MissingBoth<T> {
        MissingBoth(PhantomData)
    }
}

/// A tool argument.
pub struct ArgumentOk;

impl ArgumentOk {
    /// Nothing to report.
    pub fn check(self) {}
}

/// A type without `Deserialize`.
pub struct MissingParse<T>(PhantomData<fn() -> T>);

impl<T> MissingParse<T> {
    /// Reports the missing `Deserialize`.
    pub fn check(self)
    where
        T: ArgumentParse,
    {
    }
}

/// A type without `JsonSchema`.
pub struct MissingSchema<T>(PhantomData<fn() -> T>);

impl<T> MissingSchema<T> {
    /// Reports the missing `JsonSchema`.
    pub fn check(self)
    where
        T: ArgumentSchema,
    {
    }
}

/// A type without either.
pub struct MissingBoth<T>(PhantomData<fn() -> T>);

impl<T> MissingBoth<T> {
    /// Reports both missing.
    pub fn check(self)
    where
        T: ToolArgument,
    {
    }
}
