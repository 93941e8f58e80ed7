//! From a model's tool call to a tool result.

use std::time::Duration;

use futures::future::BoxFuture;
use serde::de::DeserializeOwned;

use super::runtime::InjectError;
use super::{CallTool, ToolError, ToolOutput, ToolRuntime};
use crate::message::ToolCall;

/// Why a tool call produced no output. Every variant renders as a message written for the
/// model ([`ToolCallError::model_message`]), so the model can correct itself.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolCallError {
    /// The model asked for a tool that does not exist.
    #[error("unknown tool `{name}`; available tools: {}", available.join(", "))]
    UnknownTool {
        /// The name the model used.
        name: String,
        /// The tools it can call.
        available: Vec<String>,
    },
    /// The arguments are not valid JSON or do not match the tool's schema.
    #[error("invalid arguments for tool `{tool}`{}: {message}", path_suffix(path))]
    InvalidArguments {
        /// The tool.
        tool: String,
        /// The path of the offending field (`city`, `stops[2].name`), or `.` for the root.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A parameter the runtime should have provided was not available.
    #[error("tool `{tool}` could not run: {source}")]
    Inject {
        /// The tool.
        tool: String,
        /// What was missing.
        source: InjectError,
    },
    /// The tool ran and returned an error.
    #[error("tool `{tool}` failed: {source}")]
    Failed {
        /// The tool.
        tool: String,
        /// The tool's error.
        source: ToolError,
    },
    /// The tool panicked; the panic was caught.
    #[error("tool `{tool}` panicked: {message}")]
    Panicked {
        /// The tool.
        tool: String,
        /// The panic payload, if it was a string.
        message: String,
    },
    /// The call did not finish within its timeout (`#[tool(timeout = "5s")]` or
    /// [`AgentBuilder::tool_timeout`](crate::agent::AgentBuilder::tool_timeout)); its future
    /// was dropped.
    #[error("tool `{tool}` did not finish within {after:?} and was cancelled")]
    TimedOut {
        /// The tool.
        tool: String,
        /// The timeout that passed.
        after: Duration,
    },
    /// The call stopped at an [`Interrupt`](crate::Interrupt) ask (or is an external tool's):
    /// not an error the model reads — the agent pauses the run with the question (see
    /// [`Pause::questions`](crate::agent::Pause::questions)) and runs the call again when it
    /// is resumed with the answer.
    #[error("tool `{tool}` is waiting for an answer to its question")]
    Interrupted {
        /// The tool.
        tool: String,
        /// The question.
        question: Box<super::interrupt::Question>,
    },
    /// A [tool guardrail](crate::guard) blocked the call before it ran, or its result before
    /// the model saw it. It ends the run with
    /// [`RunErrorKind::Guardrail`](crate::agent::RunErrorKind::Guardrail), whatever the
    /// tool-error policy.
    #[error("guardrail `{guardrail}` blocked tool `{tool}`: {reason}")]
    Blocked {
        /// The tool.
        tool: String,
        /// The guardrail's name.
        guardrail: String,
        /// Why it blocked.
        reason: crate::guard::GuardReason,
    },
}

/// A tool's own error, for `?` in a tool body that returns `Result<ToolOutput, ToolCallError>`
/// (a [`DynTool`](crate::agent::DynTool) or a hand-written [`CallTool`](super::CallTool)):
/// the agent runtime fills in the name of the tool that was called.
///
/// ```
/// use agentry::{ToolCallError, ToolError, ToolOutput};
///
/// fn lookup(city: &str) -> Result<ToolOutput, ToolCallError> {
///     if city.is_empty() {
///         return Err(ToolError::new("give a city").into());
///     }
///     Ok(ToolOutput::text(format!("sunny in {city}")))
/// }
/// assert!(matches!(lookup(""), Err(ToolCallError::Failed { .. })));
/// ```
impl From<ToolError> for ToolCallError {
    fn from(source: ToolError) -> Self {
        ToolCallError::Failed {
            tool: String::new(),
            source,
        }
    }
}

fn path_suffix(path: &str) -> String {
    if path.is_empty() || path == "." {
        String::new()
    } else {
        format!(" at `{path}`")
    }
}

impl ToolCallError {
    /// The text sent back to the model as the tool result.
    pub fn model_message(&self) -> String {
        match self {
            ToolCallError::InvalidArguments { .. } | ToolCallError::UnknownTool { .. } => {
                format!("Error: {self}. Fix the call and try again.")
            }
            ToolCallError::TimedOut { .. } => format!(
                "Error: {self}. Try again with a smaller request, or answer without this tool."
            ),
            _ => format!("Error: {self}"),
        }
    }

    /// The tool name involved.
    pub fn tool(&self) -> &str {
        match self {
            ToolCallError::UnknownTool { name, .. } => name,
            ToolCallError::InvalidArguments { tool, .. }
            | ToolCallError::Inject { tool, .. }
            | ToolCallError::Failed { tool, .. }
            | ToolCallError::Panicked { tool, .. }
            | ToolCallError::TimedOut { tool, .. }
            | ToolCallError::Interrupted { tool, .. }
            | ToolCallError::Blocked { tool, .. } => tool,
        }
    }

    /// A [`ToolCallError::Failed`] of `tool` from the tool's own error, so the tool name is
    /// written once:
    ///
    /// ```
    /// use agentry::{ToolCallError, ToolError};
    ///
    /// let err = ToolCallError::failed("get_weather", ToolError::new("city not found"));
    /// assert_eq!(err.tool(), "get_weather");
    /// assert_eq!(err.to_string(), "tool `get_weather` failed: city not found");
    /// ```
    pub fn failed(tool: impl Into<String>, error: impl Into<ToolError>) -> Self {
        ToolCallError::Failed {
            tool: tool.into(),
            source: error.into(),
        }
    }

    /// Names the tool in an error built without it (through `From<ToolError>`); the agent
    /// runtime calls this with the called tool's name.
    pub(crate) fn name_tool(mut self, name: &str) -> Self {
        if let ToolCallError::Failed { tool, .. } | ToolCallError::Interrupted { tool, .. } =
            &mut self
            && tool.is_empty()
        {
            *tool = name.to_string();
        }
        self
    }

    /// A [`ToolCallError::TimedOut`] of `tool` after `after`.
    pub fn timed_out(tool: impl Into<String>, after: Duration) -> Self {
        ToolCallError::TimedOut {
            tool: tool.into(),
            after,
        }
    }

    /// Whether the error is the tool's own (it ran and failed, panicked, could not get an
    /// injected parameter, or timed out), as opposed to a bad call by the model (unknown
    /// tool, invalid arguments). [`ToolErrorPolicy::Propagate`](crate::agent::ToolErrorPolicy)
    /// stops the run on the tool's own errors only.
    pub fn is_tool_fault(&self) -> bool {
        matches!(
            self,
            ToolCallError::Failed { .. }
                | ToolCallError::Panicked { .. }
                | ToolCallError::Inject { .. }
                | ToolCallError::TimedOut { .. }
        )
    }
}

/// Parses a model's JSON arguments into typed `A`.
///
/// A `null` or empty (blank) argument string means `{}`. When `strict` is set (the provider
/// enforced an OpenAI strict schema, where optional fields arrive as `null`), object members
/// whose value is `null` are treated as absent, so serde defaults apply. Errors carry the JSON
/// path of the bad field.
///
/// ```
/// #[derive(serde::Deserialize, Debug)]
/// struct Args { city: String, days: Option<u32> }
///
/// let args: Args = agentry::tool::parse_arguments("get_weather", r#"{"city":"Paris"}"#, false).unwrap();
/// assert_eq!(args.city, "Paris");
///
/// let err = agentry::tool::parse_arguments::<Args>("get_weather", r#"{"city":"Paris","days":"two"}"#, false)
///     .unwrap_err();
/// assert!(err.to_string().contains("at `days`"), "{err}");
/// ```
pub fn parse_arguments<A: DeserializeOwned>(
    tool: &str,
    arguments: &str,
    strict: bool,
) -> Result<A, ToolCallError> {
    let text = arguments.trim();
    let text = if text.is_empty() || text == "null" {
        "{}"
    } else {
        text
    };
    let invalid = |path: String, message: String| ToolCallError::InvalidArguments {
        tool: tool.to_string(),
        path,
        message,
    };
    if strict && text.contains("null") {
        let mut value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| invalid(".".to_string(), format!("not valid JSON: {e}")))?;
        strip_nulls(&mut value);
        return serde_path_to_error::deserialize(value)
            .map_err(|e| invalid(e.path().to_string(), e.inner().to_string()));
    }
    // Fast path: plain serde. Only when it fails, parse again tracking the path, so valid
    // calls do not pay for path bookkeeping.
    serde_json::from_str(text).map_err(|first| {
        if first.is_syntax() || first.is_eof() {
            return invalid(".".to_string(), format!("not valid JSON: {first}"));
        }
        let mut de = serde_json::Deserializer::from_str(text);
        match serde_path_to_error::deserialize::<_, A>(&mut de) {
            Err(e) => invalid(e.path().to_string(), e.inner().to_string()),
            // Unreachable in practice (the same input failed above); report the first error.
            Ok(_) => invalid(".".to_string(), first.to_string()),
        }
    })
}

fn strip_nulls(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(strip_nulls);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_nulls),
        _ => {}
    }
}

/// Runs one model tool call against tool `T`: parse, inject, call.
///
/// The call must name `T` (the agent runtime dispatches by name before calling this). A
/// call that asks an [`Interrupt`](crate::Interrupt) question with no answer supplied
/// ([`ToolRuntime::with_answers`]) returns [`ToolCallError::Interrupted`] with the question.
///
/// The future is boxed: its type does not name `T`, so a value that is not a tool (or not one
/// for this runtime's context and state) is one error at the call, not one more at `.await`.
pub fn invoke<'a, T, C, S>(
    tool: &'a T,
    call: &ToolCall,
    runtime: &'a ToolRuntime<C, S>,
) -> BoxFuture<'a, Result<ToolOutput, ToolCallError>>
where
    T: CallTool<C, S>,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    let args = match parse_arguments::<T::Args>(T::NAME, &call.arguments, T::definition().strict) {
        Ok(args) => args,
        Err(error) => return Box::pin(std::future::ready(Err(error))),
    };
    Box::pin(async move {
        super::interrupt::until_asked(runtime.asks(), tool.call(args, runtime))
            .await
            .map_err(|e| e.name_tool(T::NAME))
    })
}
