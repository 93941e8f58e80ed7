//! [`ExternalTool`]: an untyped tool the caller runs, declared by name, description and JSON
//! schema. (`#[tool(external)]` declares a typed one from a body-less signature.)

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use super::dyn_tool::DynTool;
use crate::tool::interrupt::{external, external_ask};
use crate::tool::{DefinitionRef, ToolCallError, ToolDefinition, ToolOutput, ToolRuntime};

/// A tool offered to the model and run by the caller — a browser's location, a file picker,
/// anything only the front end can do (the client-side tools of AG-UI and the Vercel AI SDK).
///
/// When the model calls it, the run pauses ([`Outcome::Paused`](super::Outcome::Paused)) after
/// the answer's other calls have run; [`Pause::external_calls`](super::Pause::external_calls)
/// lists the calls with their arguments, and [`Agent::resume`](super::Agent::resume) with one
/// [`Decision::Answer`](crate::middleware::Decision::Answer) per call (its result, any JSON;
/// a string is sent to the model as it is, other JSON as its text) goes on.
///
/// For typed arguments and a typed, checked result, declare it with `#[tool(external)]` on a
/// body-less signature instead.
///
/// ```
/// use agentry::agent::{DynTool, ExternalTool};
/// use serde_json::json;
///
/// let pick = ExternalTool::new(
///     "pick_file",
///     "Ask the user to pick a file; returns its name.",
///     json!({ "type": "object", "properties": { "kind": { "type": "string" } } }),
/// );
/// assert_eq!(DynTool::<(), ()>::definition(&pick).name, "pick_file");
/// ```
#[derive(Clone, Debug)]
pub struct ExternalTool {
    definition: DefinitionRef,
}

impl ExternalTool {
    /// A tool named `name`, described to the model by `description`, taking arguments of the
    /// JSON schema `parameters`.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        ExternalTool {
            definition: ToolDefinition::new(name, description, parameters, false).into(),
        }
    }
}

impl<C: 'static, S: 'static> DynTool<C, S> for ExternalTool {
    fn definition(&self) -> DefinitionRef {
        self.definition.clone()
    }

    /// Any JSON is a result.
    fn check_answer(&self, _answer: &Value) -> Result<(), String> {
        Ok(())
    }

    fn call<'a>(
        &'a self,
        _arguments: Value,
        runtime: &'a ToolRuntime<C, S>,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolCallError>> {
        let ask = external_ask::<C, S, Value>(runtime);
        async move {
            Ok(match external::<Value>().result(ask).await {
                Value::String(text) => ToolOutput::text(text),
                other => ToolOutput::text(other.to_string()),
            })
        }
        .boxed()
    }
}
