//! [`DefaultValue`]: what `MyAgent::builder(model)` asks of an impl-block agent's type.

/// The type of an `#[agent] impl` block with a `Default`, so `MyAgent::builder(model)` can
/// build the agent on `MyAgent::default()` (the struct agents' way); without one the agent is
/// built from a value, `value.into_builder(model)`. Used by `#[agent]`; public under
/// `__private`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `Default`, so its agent is built from a value",
    label = "`builder(model)` builds the agent on `{Self}::default()`",
    note = "make a `{Self}` and call `into_builder(model)` on it (`shared_builder(Arc::new(value), model)` for a value already shared), or derive `Default` for `{Self}`"
)]
pub trait DefaultValue: Default {}

#[diagnostic::do_not_recommend]
impl<T: Default> DefaultValue for T {}
