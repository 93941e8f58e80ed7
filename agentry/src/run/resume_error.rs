//! Why [`Agent::resume`](crate::agent::Agent::resume) refused a pause: [`ResumeError`].

use super::review::{Allowed, DecisionKind};
use crate::tool::ToolCallError;

/// Why [`Agent::resume`](crate::agent::Agent::resume) refused a pause or its decisions.
/// Nothing ran.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ResumeError {
    /// The pause was written in another format.
    #[error("this pause is in format {found}; this version of agentry reads format {expected}")]
    Version {
        /// The pause's format.
        found: u32,
        /// The format this version reads.
        expected: u32,
    },
    /// A reviewed call has no decision.
    #[error("call `{call_id}` of tool `{tool}` is under review and has no decision")]
    MissingDecision {
        /// The call.
        call_id: String,
        /// Its tool.
        tool: String,
    },
    /// A decision names a call that is not under review in this pause.
    #[error("call `{call_id}` is not under review in this pause")]
    NotUnderReview {
        /// The call id the decision named.
        call_id: String,
    },
    /// Two decisions for one call.
    #[error("call `{call_id}` has more than one decision")]
    DuplicateDecision {
        /// The call.
        call_id: String,
    },
    /// The decision is not one the policy allows for this tool.
    #[error("decision `{decision}` is not allowed for tool `{tool}`; allowed: {allowed}")]
    NotAllowed {
        /// The call.
        call_id: String,
        /// Its tool.
        tool: String,
        /// The decision taken.
        decision: DecisionKind,
        /// The decisions allowed.
        allowed: Allowed,
    },
    /// Edited arguments do not fit the tool's arguments.
    #[error("the edited arguments of call `{call_id}` are invalid: {error}")]
    InvalidEdit {
        /// The call.
        call_id: String,
        /// What is wrong, with the JSON path.
        error: ToolCallError,
    },
    /// An answer does not fit the answer type of the question its call asked (the tool's
    /// `Interrupt<_, A>`, or an external tool's result type).
    #[error(
        "the answer to call `{call_id}` of tool `{tool}` does not fit its answer type: {error}"
    )]
    InvalidAnswer {
        /// The call.
        call_id: String,
        /// Its tool.
        tool: String,
        /// What is wrong.
        error: String,
    },
    /// A reviewed call names a tool the agent does not have (whatever the decision).
    #[error("call `{call_id}` is to tool `{tool}`, which this agent does not have")]
    UnknownTool {
        /// The call.
        call_id: String,
        /// The tool it names.
        tool: String,
    },
    /// The agent has a [`PauseKey`](super::PauseKey) and the pause has no seal.
    #[error("this agent only resumes sealed pauses, and this pause has no seal")]
    Unsealed,
    /// The pause's seal does not match it: it was changed after it was sealed, or sealed
    /// with another key.
    #[error("the pause's seal does not match: it was changed, or sealed with another key")]
    BadSeal,
    /// The pause was resumed already (it is single use; see [`Pause`](super::Pause)).
    #[error("pause `{id}` was resumed already")]
    AlreadyResumed {
        /// The pause's id.
        id: String,
    },
}
