//! A sub-agent struct with fields (its tools' resources): a parent that lists it makes it with
//! `Default`, and each call clones it. `#[agent(as_tool)]` checks both where the struct is
//! declared, as one error, and makes and clones it through the listed-tool probe
//! (`(&ToolProbe::<T>::new())`, auto-ref: [`FieldsOk`] when it has both, else
//! [`FieldsMissing`], which the check reports), so a missing
//! `Clone` or `Default` is not reported again where it is used (at the parent's
//! `tools(...)`, or in the generated `Tool` impl).
//!
//! Re-exported from `agentry::__private::multi`.

use crate::agent::checks::ToolProbe;

/// What a sub-agent with fields needs: checked once, where it is declared.
#[diagnostic::on_unimplemented(
    message = "the sub-agent `{Self}` has fields, so it needs `Clone` and `Default`",
    label = "add `#[derive(Clone, Default)]` to `{Self}`",
    note = "a parent that lists `{Self}` in `tools(...)` makes it with `Default`, and each call runs on a clone of it"
)]
pub trait SubAgentFields: Clone + Default {}

#[diagnostic::do_not_recommend]
impl<T: Clone + Default> SubAgentFields for T {}

/// Chosen when the sub-agent is `Clone + Default`.
pub trait FieldsOk<T> {
    /// `T::default()`.
    fn make_fields(&self) -> T;
    /// `value.clone()`.
    fn clone_fields(&self, value: &T) -> T;
}

impl<T: Clone + Default> FieldsOk<T> for ToolProbe<T> {
    fn make_fields(&self) -> T {
        T::default()
    }

    fn clone_fields(&self, value: &T) -> T {
        value.clone()
    }
}

/// Chosen when it is not: the program does not compile ([`SubAgentFields`] is reported where
/// the struct is declared), so these are never called.
pub trait FieldsMissing<T> {
    /// Never returns.
    fn make_fields(&self) -> T {
        unreachable!("a sub-agent with fields but no `Default` is a compile error")
    }

    /// Never returns.
    fn clone_fields(&self, _value: &T) -> T {
        unreachable!("a sub-agent with fields but no `Clone` is a compile error")
    }
}

impl<T> FieldsMissing<T> for &ToolProbe<T> {}

#[cfg(test)]
// The borrows are the point: they pick the impl, as the generated code's do.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::*;

    #[derive(Clone, Default, PartialEq, Debug)]
    struct Lookup {
        key: String,
    }

    #[test]
    fn a_sub_agent_with_both_is_made_and_cloned() {
        let made = (&ToolProbe::<Lookup>::new()).make_fields();
        assert_eq!(made, Lookup::default());
        let value = Lookup { key: "k".into() };
        assert_eq!((&ToolProbe::<Lookup>::new()).clone_fields(&value), value);
    }

    fn needs<T: SubAgentFields>() {}

    #[test]
    fn the_check_accepts_both() {
        needs::<Lookup>();
    }
}
