//! [`IntoDecision`]: one reviewer's decision on one paused call, as `resume` takes it.

use super::review::Decision;

/// One decision on one paused call: `(call_id, Decision)`, the call's id as a `String` or
/// `&str`. What [`Agent::resume`](crate::agent::Agent::resume) and the threads' `resume`
/// take a list of.
///
/// ```
/// use agentry::middleware::Decision;
/// use agentry::middleware::IntoDecision;
///
/// let call_id = String::from("call-1");
/// assert_eq!(
///     (call_id.as_str(), Decision::Approve).into_decision(),
///     ("call-1".to_string(), Decision::Approve)
/// );
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a decision on a paused call",
    label = "each decision is `(call_id, Decision)`",
    note = "write `(call_id, Decision::Approve)` (or `Decision::Reject {{ message }}`, `Decision::Edit {{ arguments }}`, `Decision::Respond {{ content }}`, `Decision::answer(..)`), with `use agentry::middleware::Decision;`: a decision is a `Decision` value, not its name as text or a `bool`"
)]
pub trait IntoDecision {
    /// The call's id and the decision.
    fn into_decision(self) -> (String, Decision);
}

impl<K: Into<String>> IntoDecision for (K, Decision) {
    fn into_decision(self) -> (String, Decision) {
        (self.0.into(), self.1)
    }
}

/// The decisions as `(call_id, Decision)` pairs.
pub(crate) fn collect_decisions(
    decisions: impl IntoIterator<Item: IntoDecision>,
) -> Vec<(String, Decision)> {
    decisions
        .into_iter()
        .map(IntoDecision::into_decision)
        .collect()
}
