//! One agent of a [`Team`](super::Team), with its output mapped to the team's and its
//! handoffs offered as `transfer_to_<agent>` tools.

use std::sync::Arc;

use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::Value;

use crate::agent::{
    Agent, AgentBuilder, AgentEvent, AgentStream, Input, Outcome, Pause, RequestUsage, RunError,
    RunErrorKind, StopReason, ThreadState, Toolset,
};
use crate::message::{AssistantMessage, ContentBlock, Message, ToolCall, ToolResultMessage};
use crate::middleware::Decision;
use crate::middleware::{
    AfterModel, DecisionKind, Hook, Middleware, MiddlewareError, ReviewRequest, RunCx,
};
use crate::model::ChatResponse;
use crate::output::OutputSpec;
use crate::run::erase;
use crate::run::{PartialRun, ThreadError};
use crate::tool::{ToolCallError, ToolDefinition, ToolError, ToolOutput, ToolRuntime};
use crate::usage::Usage;

/// Where a member's events go, with their types erased.
pub(crate) type EventFn = dyn Fn(AgentEvent<Value, ()>) + Send + Sync;

/// How one agent's turn at the conversation ended.
pub(crate) enum Leg<O> {
    /// It answered.
    Answer {
        output: O,
        messages: Vec<Message>,
        usage: Usage,
        request_usage: Vec<RequestUsage>,
        stop_reason: StopReason,
    },
    /// It stopped for review, at a tool's question or at an external tool: its
    /// [`Pause`] as JSON (what [`Runner::resume`] goes on from) and the tools it stopped at.
    Paused { pause: Value, tools: Vec<String> },
    /// It handed the conversation to `to` (a member index).
    Handoff {
        to: usize,
        messages: Vec<Message>,
        usage: Usage,
        request_usage: Vec<RequestUsage>,
    },
}

/// A member, with its types erased but the team's output type `O` and context `C`.
pub(crate) trait Runner<O, C>: Send + Sync {
    fn run<'a>(
        &'a self,
        messages: Vec<Message>,
        context: Arc<C>,
        events: Option<&'a EventFn>,
    ) -> BoxFuture<'a, Result<Leg<O>, RunError>>;

    /// Goes on from a pause this member's run made ([`Leg::Paused`]) through the agent's own
    /// [`Agent::resume`]: its checks of the decisions, its seal and its single use.
    fn resume<'a>(
        &'a self,
        pause: Value,
        decisions: Vec<(String, Decision)>,
        context: Arc<C>,
        events: Option<&'a EventFn>,
    ) -> BoxFuture<'a, Result<Leg<O>, RunError>>;
}

/// A `transfer_to_<target>` tool: its name and the member it leads to.
#[derive(Clone, Debug)]
pub(crate) struct Transfer {
    pub(crate) tool: String,
    pub(crate) target: usize,
    pub(crate) target_name: String,
}

/// Builds a member's runner once the team knows its handoffs.
pub(crate) type MakeRunner<O, C> =
    Box<dyn FnOnce(Vec<Transfer>, Vec<ToolDefinition>) -> Box<dyn Runner<O, C>> + Send>;

/// The deferred build of a member from its builder.
pub(crate) fn make_runner<T, Sp, C, S, O, F>(
    builder: AgentBuilder<T, Sp, C, S>,
    map: F,
) -> MakeRunner<O, C>
where
    T: Toolset<C, S>,
    T::Event: serde::Serialize,
    Sp: OutputSpec,
    C: Send + Sync + 'static,
    S: ThreadState + Default,
    O: Send + 'static,
    F: Fn(Sp::Output) -> O + Send + Sync + 'static,
{
    Box::new(
        move |transfers: Vec<Transfer>, definitions: Vec<ToolDefinition>| {
            let mut builder = builder;
            for definition in definitions {
                let name = definition.name.clone();
                builder = builder.dyn_tool(crate::agent::FnTool::new(
                    definition,
                    move |_: Value, _: &ToolRuntime<C, S>| {
                        // Never reached inside a team: the handoff stops the run before tools run.
                        let error = ToolCallError::Failed {
                            tool: name.clone(),
                            source: ToolError::new("a handoff only works inside its team"),
                        };
                        async move { Err::<ToolOutput, _>(error) }
                    },
                ));
            }
            let tools = transfers.iter().map(|t| t.tool.clone()).collect();
            let agent = builder.middleware(TakeHandoff { tools }).build();
            Box::new(Member {
                agent,
                map,
                transfers,
            }) as Box<dyn Runner<O, C>>
        },
    )
}

/// The definition of the tool that hands the conversation to `target`.
pub(crate) fn transfer_definition(target: &str, description: &str) -> ToolDefinition {
    ToolDefinition::new(
        format!("transfer_to_{target}"),
        format!(
            "Hand the conversation to the `{target}` agent, which answers from then on. {description}"
        ),
        serde_json::json!({ "type": "object", "properties": {}, "additionalProperties": false }),
        true,
    )
}

/// Stops a member's run, before any tool runs, when its model calls a transfer tool.
struct TakeHandoff {
    tools: Vec<String>,
}

impl<C: Send + Sync + 'static, S: Send + Sync + 'static> Middleware<C, S> for TakeHandoff {
    fn name(&self) -> &str {
        "handoff"
    }

    fn after_model<'a>(
        &'a self,
        response: &'a mut ChatResponse,
        _cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<AfterModel, MiddlewareError>> {
        let transfer = response
            .message
            .tool_calls
            .iter()
            .find(|call| self.tools.contains(&call.name));
        Hook::ready(Ok(match transfer {
            None => AfterModel::Continue,
            Some(call) => AfterModel::Pause(vec![ReviewRequest {
                call_id: call.id.clone(),
                tool: call.name.clone(),
                description: "handoff".to_string(),
                allowed: DecisionKind::Approve.into(),
            }]),
        }))
    }
}

struct Member<T, Sp, C, S, F> {
    agent: Agent<T, Sp, C, S>,
    map: F,
    transfers: Vec<Transfer>,
}

impl<T, Sp, C, S, O, F> Runner<O, C> for Member<T, Sp, C, S, F>
where
    T: Toolset<C, S>,
    T::Event: serde::Serialize,
    Sp: OutputSpec,
    C: Send + Sync + 'static,
    S: ThreadState + Default,
    O: Send + 'static,
    F: Fn(Sp::Output) -> O + Send + Sync + 'static,
{
    fn run<'a>(
        &'a self,
        messages: Vec<Message>,
        context: Arc<C>,
        events: Option<&'a EventFn>,
    ) -> BoxFuture<'a, Result<Leg<O>, RunError>> {
        Box::pin(async move {
            let input = Input::from_messages(messages);
            let outcome = match events {
                None => self.agent.run_or_pause(input, context).await?,
                Some(sink) => drain(self.agent.stream(input, context), sink).await?,
            };
            self.leg(outcome)
        })
    }

    fn resume<'a>(
        &'a self,
        pause: Value,
        decisions: Vec<(String, Decision)>,
        context: Arc<C>,
        events: Option<&'a EventFn>,
    ) -> BoxFuture<'a, Result<Leg<O>, RunError>> {
        Box::pin(async move {
            let pause: Pause<S> = serde_json::from_value(pause).map_err(|e| {
                let error =
                    ThreadError::state::<Pause<S>>("team member", "does not deserialize", e);
                RunError::new(RunErrorKind::Thread(error), PartialRun::default())
            })?;
            let outcome = match events {
                None => self.agent.resume(pause, decisions, context).await?,
                Some(sink) => {
                    drain(self.agent.resume_stream(pause, decisions, context), sink).await?
                }
            };
            self.leg(outcome)
        })
    }
}

/// Sends a member's events to `sink` and returns how its run ended.
async fn drain<O, S, E>(
    mut stream: AgentStream<'_, O, S, E>,
    sink: &EventFn,
) -> Result<Outcome<O, S>, RunError>
where
    AgentEvent<O, S, E>: Send,
    E: serde::Serialize,
{
    let mut end = None;
    while let Some(item) = stream.next().await {
        match item? {
            // The result stays with the stream: taken after the loop.
            AgentEvent::Done { .. } => {}
            AgentEvent::Paused(pause) => end = Some(Outcome::Paused(pause)),
            event => {
                if let Some(event) = erase(event) {
                    sink(event);
                }
            }
        }
    }
    // A stream always ends with `Done`, `Paused` or an error.
    match end {
        Some(outcome) => Ok(outcome),
        None => stream.outcome().await,
    }
}

impl<T, Sp, C, S: ThreadState, F> Member<T, Sp, C, S, F> {
    /// The leg a member's run ended with.
    fn leg<O, X>(&self, outcome: Outcome<X, S>) -> Result<Leg<O>, RunError>
    where
        F: Fn(X) -> O,
    {
        match outcome {
            Outcome::Finished(result) => Ok(Leg::Answer {
                output: (self.map)(result.output),
                messages: result.messages.into_vec(),
                usage: result.usage,
                request_usage: result.request_usage,
                stop_reason: result.stop_reason,
            }),
            Outcome::Paused(pause) => self.handoff(*pause),
        }
    }

    /// The conversation after a transfer call: the answer, the transfer's result, and the
    /// answer's other calls marked as not run.
    fn handoff<O>(&self, pause: Pause<S>) -> Result<Leg<O>, RunError> {
        let response = pause.full_answer();
        let found = response.message.tool_calls.iter().find_map(|call| {
            self.transfers
                .iter()
                .find(|t| t.tool == call.name)
                .map(|t| (call.id.clone(), t))
        });
        let Some((transfer_id, transfer)) = found else {
            // A pause of the member's own review (or a question): the team waits for it.
            let tools = pause
                .calls
                .iter()
                .filter(|c| c.review.is_some() || c.question.is_some())
                .map(|c| c.call.name.clone())
                .collect();
            let pause = serde_json::to_value(&pause).map_err(|e| {
                let error = ThreadError::state::<Pause<S>>("team member", "does not serialize", e);
                RunError::new(RunErrorKind::Thread(error), pause.partial())
            })?;
            return Ok(Leg::Paused { pause, tools });
        };
        let snapshot = pause.snapshot;
        let mut messages = snapshot.messages;
        let calls: Vec<ToolCall> = response.message.tool_calls.clone();
        messages.push(Message::Assistant(AssistantMessage { ..response.message }));
        for call in &calls {
            let (text, is_error) = if call.id == transfer_id {
                (format!("Transferred to `{}`.", transfer.target_name), false)
            } else {
                (
                    format!(
                        "Not run: the conversation was transferred to `{}`.",
                        transfer.target_name
                    ),
                    true,
                )
            };
            messages.push(Message::Tool(ToolResultMessage {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: vec![ContentBlock::text(text)],
                is_error,
            }));
        }
        let mut request_usage = snapshot.request_usage;
        request_usage.push(RequestUsage {
            model: response.model,
            usage: response.usage,
            agent: None,
        });
        Ok(Leg::Handoff {
            to: transfer.target,
            messages,
            usage: snapshot.usage + response.usage,
            request_usage,
        })
    }
}
