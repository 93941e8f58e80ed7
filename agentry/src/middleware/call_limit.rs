//! [`CallLimit`]: caps model calls per run and per thread, and tool calls per tool.

use super::{AfterModel, BeforeModel, Flow, Hook, Middleware, MiddlewareError, RunCx};
use crate::message::AssistantMessage;
use crate::model::ChatResponse;

/// What happens when a limit is reached.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LimitBehavior {
    /// End the run with a final answer saying which limit was reached (stop reason
    /// [`StopReason::Ended`](crate::agent::StopReason::Ended)). For a structured output the
    /// answer must parse as the output, so prefer `Error` there.
    End,
    /// Fail the run with [`RunErrorKind::Middleware`](crate::agent::RunErrorKind::Middleware).
    #[default]
    Error,
}

/// Call limits (LangChain's `ModelCallLimitMiddleware` and `ToolCallLimitMiddleware`):
///
/// * model calls per run, checked before each request;
/// * model calls per thread (the model answers in the history the run started from plus
///   this run's), checked before each request;
/// * calls per tool (or of all tools) per run, checked when an answer asks for calls: the
///   answer that would pass a limit ends or fails the run before any of its calls runs.
///
/// ```
/// use agentry::middleware::{CallLimit, LimitBehavior};
///
/// let limits = CallLimit::new()
///     .model_calls_per_run(5)
///     .tool_calls("web_search", 3)
///     .on_limit(LimitBehavior::End);
/// # let _ = limits;
/// ```
#[derive(Clone, Debug, Default)]
pub struct CallLimit {
    run_model_calls: Option<u32>,
    thread_model_calls: Option<u32>,
    tool_calls: Vec<(Option<String>, u32)>,
    behavior: LimitBehavior,
}

impl CallLimit {
    /// No limit yet; reaching one is an error unless [`CallLimit::on_limit`] says otherwise.
    pub fn new() -> Self {
        CallLimit::default()
    }

    /// At most `max` model calls per run.
    pub fn model_calls_per_run(mut self, max: u32) -> Self {
        self.run_model_calls = Some(max);
        self
    }

    /// At most `max` model answers in the whole thread.
    pub fn model_calls_per_thread(mut self, max: u32) -> Self {
        self.thread_model_calls = Some(max);
        self
    }

    /// At most `max` calls of the tool named `tool` per run.
    pub fn tool_calls(mut self, tool: impl Into<String>, max: u32) -> Self {
        self.tool_calls.push((Some(tool.into()), max));
        self
    }

    /// At most `max` tool calls in all per run.
    pub fn all_tool_calls(mut self, max: u32) -> Self {
        self.tool_calls.push((None, max));
        self
    }

    /// What reaching a limit does.
    pub fn on_limit(mut self, behavior: LimitBehavior) -> Self {
        self.behavior = behavior;
        self
    }

    fn reached<T>(&self, what: String) -> Result<T, MiddlewareError>
    where
        T: From<AssistantMessage>,
    {
        match self.behavior {
            LimitBehavior::Error => Err(MiddlewareError::new("CallLimit", what)),
            LimitBehavior::End => Ok(T::from(AssistantMessage {
                content: vec![crate::message::ContentBlock::text(format!(
                    "I stopped here: the {what}."
                ))],
                ..AssistantMessage::default()
            })),
        }
    }
}

impl From<AssistantMessage> for Flow {
    fn from(message: AssistantMessage) -> Self {
        Flow::End(message)
    }
}

impl From<AssistantMessage> for AfterModel {
    fn from(message: AssistantMessage) -> Self {
        AfterModel::End(message)
    }
}

impl<C, S> Middleware<C, S> for CallLimit
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    fn name(&self) -> &str {
        "CallLimit"
    }

    fn before_model<'a>(
        &'a self,
        _request: &'a mut BeforeModel,
        cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        // `turn` is the number of the coming request.
        if let Some(max) = self.run_model_calls
            && cx.turn() > max
        {
            return Hook::ready(
                self.reached(format!("model call limit of {max} per run was reached")),
            );
        }
        if let Some(max) = self.thread_model_calls
            && cx.thread_model_calls() >= max
        {
            return Hook::ready(
                self.reached(format!("model call limit of {max} per thread was reached")),
            );
        }
        Hook::ready(Ok(Flow::Continue))
    }

    fn after_model<'a>(
        &'a self,
        response: &'a mut ChatResponse,
        cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<AfterModel, MiddlewareError>> {
        let calls = &response.message.tool_calls;
        for (tool, max) in &self.tool_calls {
            let (done, asked) = match tool {
                Some(name) => (
                    cx.tool_calls_of(name),
                    calls.iter().filter(|c| c.name == *name).count(),
                ),
                None => (cx.steps().len(), calls.len()),
            };
            if asked > 0 && done + asked > *max as usize {
                let which = tool
                    .as_deref()
                    .map(|t| format!("tool `{t}`"))
                    .unwrap_or_else(|| "tools".to_string());
                return Hook::ready(self.reached(format!(
                    "call limit of {max} for {which} per run would be passed ({done} made, {asked} more asked)"
                )));
            }
        }
        Hook::ready(Ok(AfterModel::Continue))
    }
}
