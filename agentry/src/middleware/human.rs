//! [`HumanInTheLoop`]: stop before reviewed tools run, and let a person decide.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{AfterModel, Hook, Middleware, MiddlewareError, RunCx};
use crate::message::ToolCall;
use crate::model::ChatResponse;
use crate::tool::Tool;

/// One decision a reviewer may take on a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// Run the call as the model wrote it.
    Approve,
    /// Run the call with other arguments.
    Edit,
    /// Do not run it; tell the model why.
    Reject,
    /// Do not run it; answer in the tool's place.
    Respond,
}

impl DecisionKind {
    const ALL: [DecisionKind; 4] = [
        DecisionKind::Approve,
        DecisionKind::Edit,
        DecisionKind::Reject,
        DecisionKind::Respond,
    ];

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for DecisionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DecisionKind::Approve => "approve",
            DecisionKind::Edit => "edit",
            DecisionKind::Reject => "reject",
            DecisionKind::Respond => "respond",
        })
    }
}

/// The decisions allowed on a reviewed tool: never empty.
///
/// There is no empty constructor: a set is made from one [`DecisionKind`] and grown with `|`,
/// so a review policy without any allowed decision cannot be written.
///
/// ```
/// use agentry::middleware::{Allowed, DecisionKind::*};
///
/// let allowed = Approve | Reject;
/// assert!(allowed.contains(Reject));
/// assert!(!allowed.contains(Edit));
/// assert_eq!(Allowed::ALL.kinds().count(), 4);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Allowed(u8);

impl Allowed {
    /// Every decision.
    pub const ALL: Allowed = Allowed(0b1111);

    /// Whether `kind` is allowed.
    pub fn contains(self, kind: DecisionKind) -> bool {
        self.0 & kind.bit() != 0
    }

    /// The allowed decisions, in the order approve, edit, reject, respond.
    pub fn kinds(self) -> impl Iterator<Item = DecisionKind> {
        DecisionKind::ALL
            .into_iter()
            .filter(move |k| self.contains(*k))
    }
}

impl From<DecisionKind> for Allowed {
    fn from(kind: DecisionKind) -> Self {
        Allowed(kind.bit())
    }
}

impl std::ops::BitOr for DecisionKind {
    type Output = Allowed;
    fn bitor(self, rhs: DecisionKind) -> Allowed {
        Allowed(self.bit() | rhs.bit())
    }
}

impl std::ops::BitOr<DecisionKind> for Allowed {
    type Output = Allowed;
    fn bitor(self, rhs: DecisionKind) -> Allowed {
        Allowed(self.0 | rhs.bit())
    }
}

impl fmt::Debug for Allowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.kinds()).finish()
    }
}

impl fmt::Display for Allowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.kinds().map(|k| k.to_string()).collect();
        f.write_str(&names.join(", "))
    }
}

impl Serialize for Allowed {
    fn serialize<Ser: serde::Serializer>(&self, s: Ser) -> Result<Ser::Ok, Ser::Error> {
        s.collect_seq(self.kinds())
    }
}

impl<'de> Deserialize<'de> for Allowed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let kinds = Vec::<DecisionKind>::deserialize(d)?;
        let bits = kinds.iter().fold(0, |acc, k| acc | k.bit());
        if bits == 0 {
            return Err(serde::de::Error::custom(
                "a review allows at least one decision",
            ));
        }
        Ok(Allowed(bits))
    }
}

/// What a reviewer decided about one call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Run the call as the model wrote it.
    Approve,
    /// Run the call with these arguments (checked against the tool's argument type; a bad
    /// edit is an error for the caller of `resume`).
    Edit {
        /// The new arguments.
        arguments: serde_json::Value,
    },
    /// Do not run the call; the model receives `message` as its result.
    Reject {
        /// Why, for the model.
        message: String,
    },
    /// Do not run the call; the model receives `content` as the tool's result.
    Respond {
        /// The result.
        content: String,
    },
}

impl Decision {
    /// The kind of this decision.
    pub fn kind(&self) -> DecisionKind {
        match self {
            Decision::Approve => DecisionKind::Approve,
            Decision::Edit { .. } => DecisionKind::Edit,
            Decision::Reject { .. } => DecisionKind::Reject,
            Decision::Respond { .. } => DecisionKind::Respond,
        }
    }
}

/// A call waiting for a reviewer: which one, what to show, what may be decided.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReviewRequest {
    /// The id of the call in the model's answer.
    pub call_id: String,
    /// The tool.
    pub tool: String,
    /// A description for the reviewer.
    pub description: String,
    /// The decisions allowed.
    pub allowed: Allowed,
}

/// Writes the reviewer's description of a call.
pub type Describe = dyn Fn(&ToolCall) -> String + Send + Sync;

struct Policy {
    tool: String,
    allowed: Allowed,
    describe: Option<Arc<Describe>>,
}

/// Pauses the run before any call of a batch runs when the model calls a reviewed tool
/// (LangChain's `HumanInTheLoopMiddleware`).
///
/// The run returns [`Outcome::Interrupted`](crate::agent::Outcome::Interrupted) with a
/// [`Pause`](crate::agent::Pause); continue it with
/// [`Agent::resume`](crate::agent::Agent::resume) and one [`Decision`] per reviewed call.
///
/// ```
/// use agentry::middleware::{HumanInTheLoop, DecisionKind::*};
///
/// let hitl = HumanInTheLoop::new()
///     .review("send_email", Approve | Edit | Reject)
///     .review("delete_file", Approve);
/// assert_eq!(hitl.reviewed_tools().collect::<Vec<_>>(), ["send_email", "delete_file"]);
/// ```
#[derive(Default)]
pub struct HumanInTheLoop {
    policies: Vec<Policy>,
}

impl HumanInTheLoop {
    /// No tool is reviewed yet.
    pub fn new() -> Self {
        HumanInTheLoop::default()
    }

    /// Reviews calls of the tool named `tool`, allowing `allowed`. A later policy for the same
    /// tool replaces the earlier one.
    pub fn review(mut self, tool: impl Into<String>, allowed: impl Into<Allowed>) -> Self {
        let tool = tool.into();
        self.policies.retain(|p| p.tool != tool);
        self.policies.push(Policy {
            tool,
            allowed: allowed.into(),
            describe: None,
        });
        self
    }

    /// Reviews calls of tool `T` (named by its type, so a typo does not compile).
    pub fn review_tool<T: Tool>(self, allowed: impl Into<Allowed>) -> Self {
        self.review(T::NAME, allowed)
    }

    /// Describes calls of `tool` for the reviewer with `describe` (the default shows the
    /// tool name and the arguments). Has no effect on a tool that is not reviewed.
    pub fn describe(
        mut self,
        tool: &str,
        describe: impl Fn(&ToolCall) -> String + Send + Sync + 'static,
    ) -> Self {
        let describe: Arc<Describe> = Arc::new(describe);
        for p in self.policies.iter_mut().filter(|p| p.tool == tool) {
            p.describe = Some(Arc::clone(&describe));
        }
        self
    }

    /// The reviewed tools, in the order they were added.
    pub fn reviewed_tools(&self) -> impl Iterator<Item = &str> {
        self.policies.iter().map(|p| p.tool.as_str())
    }

    /// The reviews a model answer needs (empty when it calls no reviewed tool).
    pub fn reviews(&self, calls: &[ToolCall]) -> Vec<ReviewRequest> {
        calls
            .iter()
            .filter_map(|call| {
                let policy = self.policies.iter().find(|p| p.tool == call.name)?;
                let description = match &policy.describe {
                    Some(describe) => describe(call),
                    None => format!(
                        "Tool `{}` wants to run with arguments {}",
                        call.name, call.arguments
                    ),
                };
                Some(ReviewRequest {
                    call_id: call.id.clone(),
                    tool: call.name.clone(),
                    description,
                    allowed: policy.allowed,
                })
            })
            .collect()
    }
}

impl fmt::Debug for HumanInTheLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.policies.iter().map(|p| (&p.tool, p.allowed)))
            .finish()
    }
}

impl<C: Send + Sync + 'static, S: Send + Sync + 'static> Middleware<C, S> for HumanInTheLoop {
    fn name(&self) -> &str {
        "HumanInTheLoop"
    }

    fn after_model<'a>(
        &'a self,
        response: &'a mut ChatResponse,
        _cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<AfterModel, MiddlewareError>> {
        let reviews = self.reviews(&response.message.tool_calls);
        Hook::ready(Ok(if reviews.is_empty() {
            AfterModel::Continue
        } else {
            AfterModel::Interrupt(reviews)
        }))
    }
}
