//! [`Verdict`]: what a guardrail decides.

/// What a guardrail decides about the value it checked: let it through, stop the run with a
/// typed reason, or let a changed value through in its place.
///
/// `V` is the kind of value checked (the user's message, the typed output, a tool call's
/// arguments, a tool's result) and `R` the guardrail's reason for blocking.
///
/// ```
/// use agentry::guard::Verdict;
///
/// fn shout(text: &str) -> Verdict<String, &'static str> {
///     if text.is_empty() {
///         Verdict::Block("empty message")
///     } else if text.ends_with('!') {
///         Verdict::Pass
///     } else {
///         Verdict::Rewrite(format!("{text}!"))
///     }
/// }
/// assert_eq!(shout("hi"), Verdict::Rewrite("hi!".to_string()));
/// assert!(shout("").is_block());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use = "a verdict does nothing unless it is returned to the run"]
pub enum Verdict<V, R = String> {
    /// The value goes on as it is.
    Pass,
    /// The run stops with [`RunErrorKind::Guardrail`](crate::agent::RunErrorKind::Guardrail),
    /// carrying this reason.
    Block(R),
    /// The value goes on replaced by this one.
    Rewrite(V),
}

impl<V, R> Verdict<V, R> {
    /// Whether the verdict lets the value through unchanged.
    pub fn is_pass(&self) -> bool {
        matches!(self, Verdict::Pass)
    }

    /// Whether the verdict stops the run.
    pub fn is_block(&self) -> bool {
        matches!(self, Verdict::Block(_))
    }

    /// The verdict with its reason mapped by `f`.
    pub fn map_reason<R2>(self, f: impl FnOnce(R) -> R2) -> Verdict<V, R2> {
        match self {
            Verdict::Pass => Verdict::Pass,
            Verdict::Block(reason) => Verdict::Block(f(reason)),
            Verdict::Rewrite(value) => Verdict::Rewrite(value),
        }
    }
}
