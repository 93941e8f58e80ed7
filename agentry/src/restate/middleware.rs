//! The journaling middleware: inside a Restate invocation, each model request and each tool
//! call is a step of the journal (see [`super::steps`]); outside one, it does nothing.
//!
//! A replayed model step also puts back the state the run had when the request was made: a
//! replayed tool call returns its saved result but does not queue its state updates again.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::link::{Step, StepKind, StepLink};
use crate::agent::ThreadState;
use crate::message::{ContentBlock, ToolCall};
use crate::middleware::{Hook, Middleware, ModelNext, ModelRequest, RunCx, ToolNext};
use crate::model::{ChatResponse, ModelError};
use crate::tool::{ToolCallError, ToolError, ToolOutput, ToolRuntime};

/// Journals model requests and tool calls in the current Restate invocation. Added by
/// [`RestateAgent::new`](super::RestateAgent::new), innermost.
pub(crate) struct Journaled;

/// A journaled model step: the state when the request was made, and the answer.
#[derive(Serialize)]
struct ModelStep<'a, S> {
    state: &'a S,
    answer: &'a ChatResponse,
}

#[derive(Deserialize)]
struct SavedModelStep<S> {
    state: S,
    answer: ChatResponse,
}

/// A journaled tool step.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ToolStep {
    Ok(Vec<ContentBlock>),
    Failed(String),
    Error(String),
    NotCompleted(bool),
}

fn encode_tool(result: &Result<ToolOutput, ToolCallError>) -> Value {
    let step = match result {
        Ok(output) => ToolStep::Ok(output.content.clone()),
        Err(ToolCallError::Failed { source, .. }) => ToolStep::Failed(source.to_string()),
        Err(other) => ToolStep::Error(other.to_string()),
    };
    serde_json::to_value(step).unwrap_or_else(|e| json!({ "error": e.to_string() }))
}

fn failed(call: &ToolCall, text: impl Into<String>) -> ToolCallError {
    ToolCallError::Failed {
        tool: call.name.clone(),
        source: ToolError::new(text.into()),
    }
}

fn decode_tool(call: &ToolCall, value: Value) -> Result<ToolOutput, ToolCallError> {
    match serde_json::from_value(value) {
        Ok(ToolStep::Ok(content)) => Ok(ToolOutput {
            content,
            artifact: None,
        }),
        Ok(ToolStep::Failed(text) | ToolStep::Error(text)) => Err(failed(call, text)),
        Ok(ToolStep::NotCompleted(_)) => Err(failed(call, crate::agent::NOT_COMPLETED)),
        Err(e) => Err(failed(
            call,
            format!("the journaled result does not decode: {e}"),
        )),
    }
}

fn model_failed(message: String) -> ModelError {
    ModelError::Network(format!("the journaled model request failed: {message}"))
}

impl<C, S> Middleware<C, S> for Journaled
where
    C: Send + Sync + 'static,
    S: ThreadState,
{
    fn name(&self) -> &str {
        "RestateJournal"
    }

    fn wrap_model_call<'a>(
        &'a self,
        request: ModelRequest,
        cx: &'a RunCx<'a, C, S>,
        next: ModelNext<'a, C, S>,
    ) -> Hook<'a, Result<ChatResponse, ModelError>> {
        let Some(link) = StepLink::current() else {
            return next.run(request);
        };
        Hook::boxed(async move {
            match link.step(StepKind::Model).await {
                Step::Run { result, done } => {
                    let answer = next.run(request).await;
                    let value = match &answer {
                        Ok(answer) => serde_json::to_value(ModelStep {
                            state: cx.state(),
                            answer,
                        })
                        .map_err(|e| format!("the state or answer does not serialize: {e}")),
                        Err(e) => Err(e.to_string()),
                    };
                    let _ = result.send(value);
                    match done.await {
                        Ok(Ok(_)) => answer,
                        Ok(Err(message)) => Err(model_failed(message)),
                        Err(_) => Err(model_failed(super::link::GONE.to_string())),
                    }
                }
                Step::Replayed(Ok(value)) => {
                    match serde_json::from_value::<SavedModelStep<S>>(value) {
                        Ok(saved) => {
                            cx.set(saved.state);
                            Ok(saved.answer)
                        }
                        Err(e) => Err(model_failed(format!(
                            "the journaled step does not decode: {e}"
                        ))),
                    }
                }
                Step::Replayed(Err(message)) => Err(model_failed(message)),
            }
        })
    }

    fn wrap_tool_call<'a>(
        &'a self,
        call: ToolCall,
        runtime: &'a ToolRuntime<C, S>,
        next: ToolNext<'a, C, S>,
    ) -> Hook<'a, Result<ToolOutput, ToolCallError>> {
        let _ = runtime;
        let Some(link) = StepLink::current() else {
            return next.run(call);
        };
        Hook::boxed(async move {
            match link.step(StepKind::Tool(call.clone())).await {
                Step::Run { result, done } => {
                    let output = next.run(call).await;
                    let _ = result.send(Ok(encode_tool(&output)));
                    // The result is the run's once the engine stored it.
                    let _ = done.await;
                    output
                }
                Step::Replayed(Ok(value)) => decode_tool(&call, value),
                Step::Replayed(Err(message)) => Err(failed(&call, message)),
            }
        })
    }
}
