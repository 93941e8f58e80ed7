//! What `#[derive(StructuredOutput)]` checks of the type it derives for, each missing piece
//! one error where the type is written, and the marks it leaves so `#[agent(output = T)]`
//! adds no second error for the same mistake.
//!
//! - The companion derives: `(&&&BoundsProbe::<T>::new()).probe().check()` picks, by
//!   auto-ref, nothing to report, `Deserialize` missing, `JsonSchema` missing, or both (one
//!   error naming both).
//! - [`Derived`]: implemented by the derive whatever the type lacks, so an agent whose output
//!   it is leaves the report to the derive.
//! - [`UnnamedOutput`]: the output name of a type without the derive's inherent
//!   `__AGENTRY_OUTPUT_NAME` (an inherent constant is found before a trait's).
//!
//! Re-exported from `agentry::__private::output`.

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::derive_support::{OutputDeserialize, OutputJsonSchema};

/// A type `#[derive(StructuredOutput)]` was written on and checked (a type without generic
/// parameters: the derive cannot check a generic type's derives for every argument, so an
/// agent's output check still reports those).
pub trait Derived {}

/// The output name of a type that does not set one at compile time: `None`. The derive gives
/// its type an inherent constant of the same name, found first.
pub trait UnnamedOutput {
    /// No name known at compile time.
    const __AGENTRY_OUTPUT_NAME: Option<&'static str> = None;
}

impl<T: ?Sized> UnnamedOutput for T {}

/// Both companion derives, checked as one so that a type with neither is one error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a structured output: it implements neither `Deserialize` nor `JsonSchema`",
    label = "add `#[derive(Deserialize, JsonSchema)]` to this type",
    note = "the model's JSON answer is parsed with serde and its schema comes from schemars: derive `Deserialize, JsonSchema, StructuredOutput` together"
)]
pub trait OutputDerives {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> OutputDerives for T {}

/// What `StructuredOutput` asks of a type, as the one bound the derive's impl carries: a
/// generic derived type missing a derive is then one error where an agent asks for it (one
/// per missing trait otherwise).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a structured output: it needs `Deserialize` and `JsonSchema`, and to be `Send + 'static`",
    label = "not a structured output",
    note = "derive `Deserialize, JsonSchema, StructuredOutput` together on the type (and on the types it holds)"
)]
pub trait OutputSupertraits: DeserializeOwned + JsonSchema + Send + 'static {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema + Send + 'static> OutputSupertraits for T {}

/// Probes a derived output's type for the derives it lacks.
pub struct BoundsProbe<T>(PhantomData<fn() -> T>);

impl<T> BoundsProbe<T> {
    /// A probe for `T`.
    pub const fn new() -> Self {
        BoundsProbe(PhantomData)
    }
}

impl<T> Default for BoundsProbe<T> {
    fn default() -> Self {
        BoundsProbe::new()
    }
}

impl<T> Clone for BoundsProbe<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for BoundsProbe<T> {}

/// Nothing missing.
pub struct BoundsOk;

impl BoundsOk {
    /// Nothing to report.
    pub fn check(self) {}
}

/// A schema without `Deserialize`.
pub struct MissingDeserialize<T>(PhantomData<fn() -> T>);

impl<T> MissingDeserialize<T> {
    /// Reports the missing `Deserialize`.
    pub fn check(self)
    where
        T: OutputDeserialize,
    {
    }
}

/// `Deserialize` without a schema.
pub struct MissingSchema<T>(PhantomData<fn() -> T>);

impl<T> MissingSchema<T> {
    /// Reports the missing `JsonSchema`.
    pub fn check(self)
    where
        T: OutputJsonSchema,
    {
    }
}

/// Neither.
pub struct MissingDerives<T>(PhantomData<fn() -> T>);

impl<T> MissingDerives<T> {
    /// Reports both missing.
    pub fn check(self)
    where
        T: OutputDerives,
    {
    }
}

/// The derives a type has: chosen first.
pub trait ProbeBoundsOk {
    /// Nothing missing.
    fn probe(&self) -> BoundsOk;
}

impl<T: DeserializeOwned + JsonSchema> ProbeBoundsOk for &&BoundsProbe<T> {
    fn probe(&self) -> BoundsOk {
        BoundsOk
    }
}

/// Chosen second: a schema, no `Deserialize`.
pub trait ProbeNoDeserialize<T> {
    /// `Deserialize` missing.
    fn probe(&self) -> MissingDeserialize<T>;
}

impl<T: JsonSchema> ProbeNoDeserialize<T> for &BoundsProbe<T> {
    fn probe(&self) -> MissingDeserialize<T> {
        MissingDeserialize(PhantomData)
    }
}

/// Chosen third: `Deserialize`, no schema.
pub trait ProbeNoSchema<T> {
    /// `JsonSchema` missing.
    fn probe(&self) -> MissingSchema<T>;
}

impl<T: DeserializeOwned> ProbeNoSchema<T> for BoundsProbe<T> {
    fn probe(&self) -> MissingSchema<T> {
        MissingSchema(PhantomData)
    }
}

/// Chosen last: neither.
pub trait ProbeNoDerives<T> {
    /// Both missing.
    fn probe(self) -> MissingDerives<T>;
}

impl<T> ProbeNoDerives<T> for BoundsProbe<T> {
    fn probe(self) -> MissingDerives<T> {
        MissingDerives(PhantomData)
    }
}

#[cfg(test)]
// The borrows are the point: they pick the impl, as the generated code's do.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Full {
        x: u32,
    }

    #[test]
    fn a_type_with_both_derives_has_nothing_to_report() {
        let BoundsOk = (&&&BoundsProbe::<Full>::new()).probe();
    }

    struct Named;
    impl Named {
        const __AGENTRY_OUTPUT_NAME: Option<&'static str> = Some("named");
    }

    #[test]
    fn an_inherent_name_is_found_before_the_fallback() {
        assert_eq!(<Named>::__AGENTRY_OUTPUT_NAME, Some("named"));
        assert_eq!(<Full as UnnamedOutput>::__AGENTRY_OUTPUT_NAME, None);
        assert_eq!(<Full>::__AGENTRY_OUTPUT_NAME, None);
    }
}
