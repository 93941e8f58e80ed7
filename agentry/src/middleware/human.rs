//! [`HumanInTheLoop`]: stop before reviewed tools run, and let a person decide.

use std::fmt;
use std::sync::Arc;

use super::{AfterModel, Hook, Middleware, MiddlewareError, RunCx};
use crate::message::ToolCall;
use crate::model::ChatResponse;
pub use crate::run::{Allowed, Decision, DecisionKind, IntoDecision, ReviewRequest};
use crate::tool::Tool;

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
/// The run returns [`Outcome::Paused`](crate::agent::Outcome::Paused) with a
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
                    None => {
                        // Joined by hand: one allocation, without the formatting machinery.
                        let parts = [
                            "Tool `",
                            &call.name,
                            "` wants to run with arguments ",
                            &call.arguments,
                        ];
                        parts.concat()
                    }
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
        let reviews = HumanInTheLoop::reviews(self, &response.message.tool_calls);
        Hook::ready(Ok(if reviews.is_empty() {
            AfterModel::Continue
        } else {
            AfterModel::Pause(reviews)
        }))
    }

    fn reviews(&self, calls: &[ToolCall]) -> Vec<ReviewRequest> {
        HumanInTheLoop::reviews(self, calls)
    }

    fn reviewed_tools(&self) -> Vec<&str> {
        HumanInTheLoop::reviewed_tools(self).collect()
    }

    fn review_policy(&self, call: &ToolCall) -> Option<Allowed> {
        self.policies
            .iter()
            .find(|p| p.tool == call.name)
            .map(|p| p.allowed)
    }
}
