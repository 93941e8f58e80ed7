//! An agent as a typed tool of another agent.
//!
//! `#[agent]` on a struct implements [`SubAgent`] for it, and [`Tool`](crate::Tool) and
//! [`CallTool<PC, PS>`](crate::CallTool) for every parent context `PC` the sub-agent's own
//! context can be made from ([`ProjectContext`]). Listing it in another agent's
//! `tools(...)` is then all it takes; the call runs through [`call_agent`].

use std::sync::Arc;

use futures::StreamExt;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::agent::{
    AgentBuilder, AgentEvent, Input, Outcome, RequestUsage, RunError, RunErrorKind, Toolset,
};
use crate::model::SharedModel;
use crate::output::OutputSpec;
use crate::run::{RunScope, SubAgents};
use crate::run::{SubAgentEvent, erase};
use crate::tool::{
    Artifact, IntoToolOutput, Question, ToolCallError, ToolError, ToolOutput, ToolRuntime,
};

/// An agent that can run as a tool of another agent. Implemented by `#[agent]` on a struct.
pub trait SubAgent: Send + Sync + 'static {
    /// The tool name the parent model calls it by (the struct's name in snake_case, or
    /// `#[agent(as_tool(name = "..."))]`).
    const NAME: &'static str;
    /// What the parent model fills in ([`Prompt`] unless `as_tool(input = T)`).
    type Input: AgentInput;
    /// The sub-agent's context. (`Send + Sync + 'static` is asked where the sub-agent runs,
    /// not here: a context that is not thread-safe is one error, where the agent's builder is
    /// asked for or where it is listed as a tool.)
    type Context;
    /// The sub-agent's state (each call starts from its `Default`; thread-safe, asked the
    /// same way).
    type State;
    /// The sub-agent's tools. (Their `Toolset` impl is asked for where the sub-agent runs,
    /// so a sub-agent with a broken tool list is reported once, by its own `#[agent]`.)
    type Toolset;
}

/// Configures sub-agent `Self` for a call from a parent with context `P` (`P` only delays
/// the checks on the sub-agent's output type to where it is listed as a tool). Implemented
/// by `#[agent]`.
pub trait SubAgentBuilder<P>: SubAgent {
    /// How the sub-agent's answer is asked for and parsed.
    type Spec: OutputSpec;

    /// The sub-agent configured on `model`, as its `#[agent(...)]` says.
    fn sub_agent_builder(
        &self,
        model: SharedModel,
    ) -> AgentBuilder<Self::Toolset, Self::Spec, Self::Context, Self::State>;
}

/// What a parent model sends a sub-agent: a typed struct turned into the sub-agent's input.
///
/// [`Prompt`] is the default. For your own input, derive `Deserialize` and `JsonSchema` (the
/// parent model fills it from the schema) and say how it reads as a request:
///
/// ```
/// use agentry::agent::Input;
/// use agentry::multi::AgentInput;
/// use agentry::prelude::{Deserialize, JsonSchema};
///
/// /// A research request.
/// #[derive(Deserialize, JsonSchema)]
/// struct Research {
///     /// The topic.
///     topic: String,
///     /// How many facts to find.
///     facts: u8,
/// }
///
/// impl AgentInput for Research {
///     fn into_input(self) -> Input {
///         Input::new(format!("Find {} facts about {}.", self.facts, self.topic))
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the input of a sub-agent",
    label = "the parent model fills this type to call the sub-agent",
    note = "derive `Deserialize` and `JsonSchema` for `{Self}` and implement `agentry::multi::AgentInput` (`fn into_input(self) -> Input`), or leave out `input = ...` for a `prompt: String`"
)]
pub trait AgentInput: DeserializeOwned + JsonSchema + Send + 'static {
    /// The sub-agent's input.
    fn into_input(self) -> Input;
}

/// The default input of a sub-agent: one request in plain words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Prompt {
    /// The request for the agent, complete in itself: it sees nothing else of this
    /// conversation.
    pub prompt: String,
}

impl AgentInput for Prompt {
    fn into_input(self) -> Input {
        Input::new(self.prompt)
    }
}

/// The output of a sub-agent goes back to the parent model as JSON text (a `String` as
/// itself), and to the program as the tool result's [`Artifact`]: any
/// `Serialize + Send + Sync` type.
///
/// `P` is the parent's context type; it only delays the check to where the sub-agent is
/// listed in a parent's `tools(...)`.
#[diagnostic::on_unimplemented(
    message = "the output `{Self}` of a sub-agent cannot be sent to its parent model",
    label = "the parent model reads the sub-agent's answer as JSON",
    note = "add `Serialize` to the derives of `{Self}` (it must also be `Send + Sync`)"
)]
pub trait SubAgentOutput<P = ()> {
    /// The tool result: the JSON text, with the value as its artifact.
    fn into_tool_output(self) -> Result<ToolOutput, ToolError>;
}

impl<P, T: Serialize + Send + Sync + 'static> SubAgentOutput<P> for T {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        let mut content = IntoToolOutput::into_tool_output(&self)?;
        content.artifact = Some(Artifact::new(self));
        Ok(content)
    }
}

/// The state of a sub-agent: each call starts from `Default`.
///
/// `P` is the parent's context type; it only delays the check to where the sub-agent is
/// listed in a parent's `tools(...)`.
#[diagnostic::on_unimplemented(
    message = "the state `{Self}` of a sub-agent has no `Default`",
    label = "each call of a sub-agent starts from its state's `Default`",
    note = "derive or implement `Default` for `{Self}`"
)]
pub trait SubAgentState<P = ()>: Sized {
    /// The state a call starts from.
    fn initial() -> Self;
}

#[diagnostic::do_not_recommend]
impl<P, T: Default> SubAgentState<P> for T {
    fn initial() -> Self {
        T::default()
    }
}

/// A sub-agent that can run under a parent with context `P`: its context can be made from
/// `P`, its state starts from `Default` and its output serializes. Implemented for every such
/// [`SubAgent`]; `#[agent]`'s `CallTool` impl asks for it, so whatever is missing is
/// reported where the sub-agent is listed in a parent's `tools(...)`.
pub trait AgentTool<P>: SubAgent {
    /// Runs the sub-agent for one call (see [`call_agent`]).
    fn call_agent<PS: Send + Sync + 'static>(
        &self,
        input: Self::Input,
        runtime: &ToolRuntime<P, PS>,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolCallError>>;
}

impl<A, P> AgentTool<P> for A
where
    A: ProjectContext<P> + SubAgentBuilder<P>,
    A::Toolset: Toolset<A::Context, A::State>,
    <A::Toolset as Toolset<A::Context, A::State>>::Event: Serialize,
    A::State: SubAgentState<P>,
    <<A as SubAgentBuilder<P>>::Spec as OutputSpec>::Output: SubAgentOutput<P>,
    P: Send + Sync + 'static,
{
    fn call_agent<PS: Send + Sync + 'static>(
        &self,
        input: Self::Input,
        runtime: &ToolRuntime<P, PS>,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolCallError>> {
        call_agent(self, input, runtime)
    }
}

/// A sub-agent's context made from its parent's.
///
/// Every context is made from itself (the parent's `Arc` is shared). For another pair,
/// implement it, or name a function on the sub-agent:
/// `#[agent(context = Notes, as_tool(context_from(App = notes_for)))]` with
/// `fn notes_for(app: &App) -> Notes`. A sub-agent without a context runs under any parent.
#[diagnostic::on_unimplemented(
    message = "a sub-agent with context `{Self}` cannot run in an agent with context `{P}`",
    label = "this sub-agent's context cannot be made from the parent's context `{P}`",
    note = "name a projection on the sub-agent: `#[agent(context = {Self}, as_tool(context_from({P} = my_projection)))]` with `fn my_projection(parent: &{P}) -> {Self}`, or implement `agentry::multi::FromParentContext<{P}>` for `{Self}`"
)]
// No `Send + Sync` supertraits: `#[agent]` bounds its projection with `C: FromParentContext<P>`,
// and a supertrait would restate `C: Send + Sync` there, so a context that is not thread-safe
// would be reported at the agent's attribute on top of `context = C` (the sub-agent's context
// is `Send + Sync` through `SubAgent::Context`).
pub trait FromParentContext<P>: Sized + 'static {
    /// The sub-agent's context.
    fn from_parent(parent: &Arc<P>) -> Arc<Self>;
}

impl<T: Send + Sync + 'static> FromParentContext<T> for T {
    fn from_parent(parent: &Arc<T>) -> Arc<T> {
        Arc::clone(parent)
    }
}

/// How sub-agent `Self` gets its context inside a parent whose context is `P`. Implemented
/// by `#[agent]`: through [`FromParentContext`], or through the functions named in
/// `as_tool(context_from(...))`. It also carries the sub-agent's thread-safety: `#[agent]`
/// bounds each impl with [`ContextType`](crate::agent::ContextType) and
/// [`StateType`](crate::agent::StateType) (higher-ranked, so not checked
/// where the sub-agent is declared), so a sub-agent whose context or state is not `Send +
/// Sync` is one error where it is listed as a tool.
#[diagnostic::on_unimplemented(
    message = "agent `{Self}` cannot be a tool of an agent with context `{P}`",
    label = "its context cannot be made from `{P}`",
    note = "add `{P} = my_projection` to the sub-agent's `as_tool(context_from(...))`, with `fn my_projection(parent: &{P}) -> SubAgentContext`"
)]
pub trait ProjectContext<P>:
    SubAgent<Context: crate::agent::ContextType, State: crate::agent::StateType>
{
    /// The sub-agent's context for a call from a parent with context `parent`.
    fn project(parent: &Arc<P>) -> Arc<Self::Context>;
}

/// Runs sub-agent `agent` for one tool call of a parent run: on the model the parent set
/// for it ([`AgentBuilder::sub_agent`]) or the parent's own; with its own limits capped by
/// what is left of the parent's deadline and token budget; its usage rolled into the
/// parent's run; its events nested in the parent's stream. Cancelling the parent (dropping
/// its future, a tool timeout, its deadline) drops this future and the sub-agent's run with
/// it. A failed run comes back as a tool error, within the parent's retry budget. A run that
/// stops at a tool's question pauses the parent with it; the parent's resume runs the
/// sub-agent again, and its first asking call takes the answers.
pub fn call_agent<A, PC, PS>(
    agent: &A,
    input: A::Input,
    runtime: &ToolRuntime<PC, PS>,
) -> BoxFuture<'static, Result<ToolOutput, ToolCallError>>
where
    A: ProjectContext<PC> + SubAgentBuilder<PC>,
    A::Toolset: Toolset<A::Context, A::State>,
    <A::Toolset as Toolset<A::Context, A::State>>::Event: Serialize,
    A::State: SubAgentState<PC>,
    <<A as SubAgentBuilder<PC>>::Spec as OutputSpec>::Output: SubAgentOutput<PC>,
    PC: Send + Sync + 'static,
    PS: Send + Sync + 'static,
{
    let Some(scope) = runtime.scope() else {
        let error = failed::<A>(format!(
            "the `{}` agent has no model: run it as a tool of an agent, or give the runtime one with `ToolRuntime::with_model`",
            A::NAME
        ));
        return Box::pin(futures::future::ready(Err(error)));
    };
    // An agent may list itself or an ancestor (a recursive planner): each level is a run of
    // its own, so the nesting is capped where the model cannot see it coming.
    let Some(nested) = scope.sub_agents.nested() else {
        let error = failed::<A>(too_deep(A::NAME, scope.sub_agents.depth()));
        return Box::pin(futures::future::ready(Err(error)));
    };
    // Everything the run needs is taken now, so its future borrows nothing of the call.
    let context = A::project(runtime.shared_context());
    let mut child = configure::<A, PC>(agent, &scope, nested);
    // Re-run for the parent's resume: the sub-agent's first asking call takes the answers.
    let given = runtime.given_answers();
    if !given.is_empty() {
        child.parts.forwarded = Some(Arc::new(std::sync::Mutex::new(Some(given.clone()))));
    }
    let call_id = runtime.call_id().to_string();
    let input = input.into_input();
    let state = <A::State as SubAgentState<PC>>::initial();
    Box::pin(async move {
        let outcome = match &scope.events {
            None => child.run_or_pause_with_state(input, context, state).await,
            Some(sink) => {
                let mut stream = child.stream_with_state(input, context, state);
                let mut end = None;
                while let Some(item) = stream.next().await {
                    match item {
                        // The result stays with the stream: taken after the loop.
                        Ok(AgentEvent::Done { .. }) => {}
                        Ok(AgentEvent::Paused(pause)) => end = Some(Ok(Outcome::Paused(pause))),
                        Ok(event) => {
                            if let Some(event) = erase(event) {
                                sink(SubAgentEvent {
                                    agent: A::NAME.to_string(),
                                    call_id: call_id.clone(),
                                    event,
                                });
                            }
                        }
                        Err(error) => end = Some(Err(error)),
                    }
                }
                match end {
                    Some(outcome) => outcome,
                    None => stream.result().await.map(Outcome::Finished),
                }
            }
        };
        match outcome {
            Ok(Outcome::Finished(result)) => {
                scope.record(tagged(A::NAME, result.request_usage));
                SubAgentOutput::<PC>::into_tool_output(result.output)
                    .map_err(|e| failed::<A>(e.message))
            }
            Ok(Outcome::Paused(pause)) => {
                let pause = *pause;
                let mut spent = pause.snapshot.request_usage.clone();
                spent.push(RequestUsage {
                    model: pause.answer.response.model.clone(),
                    usage: pause.answer.response.usage,
                    agent: None,
                });
                scope.record(tagged(A::NAME, spent));
                Err(carried_question::<A>(&pause, given))
            }
            Err(error) => {
                scope.record(tagged(A::NAME, error.partial().request_usage.clone()));
                Err(failed::<A>(describe(A::NAME, &error)))
            }
        }
    })
}

/// The parent's view of a sub-agent's pause: the first question of one without reviews,
/// asked by the sub-agent's call (the parent pauses at it, and its resume re-runs the
/// sub-agent with the answers); a review, which a sub-agent cannot wait for, is an error.
fn carried_question<A: SubAgent>(
    pause: &crate::run::Pause<impl Sized>,
    given: Vec<serde_json::Value>,
) -> ToolCallError {
    let question = pause.questions().next();
    match question {
        Some(q) if pause.reviews().next().is_none() => ToolCallError::Interrupted {
            tool: A::NAME.to_string(),
            question: Box::new(Question {
                question: if q.is_external() {
                    q.arguments()
                } else {
                    q.question().clone()
                },
                answered: given,
                kind: q.question.kind,
            }),
        },
        _ => failed::<A>(paused_message(A::NAME)),
    }
}

/// A failure of sub-agent `A`, for the parent model.
fn failed<A: SubAgent>(message: String) -> ToolCallError {
    ToolCallError::Failed {
        tool: A::NAME.to_string(),
        source: ToolError::new(message),
    }
}

/// The sub-agent's [`Agent`](crate::agent::Agent), on the right model and within the
/// parent's budget.
fn configure<A: SubAgentBuilder<P>, P>(
    agent: &A,
    scope: &RunScope,
    nested: SubAgents,
) -> crate::agent::Agent<A::Toolset, A::Spec, A::Context, A::State>
where
    A::Toolset: Toolset<A::Context, A::State>,
    A::Context: Send + Sync + 'static,
    A::State: Send + Sync + 'static,
{
    let options = scope.sub_agents.get(A::NAME);
    let model = options
        .and_then(|o| o.model.clone())
        .unwrap_or_else(|| Arc::clone(&scope.model));
    let mut builder = agent.sub_agent_builder(model);
    let limits = &mut builder.parts.policy.limits;
    if let Some(options) = options {
        if let Some(max) = options.max_turns {
            limits.max_turns = max;
        }
        if let Some(max) = options.max_execution_time {
            limits.max_execution_time = Some(max);
        }
        if let Some(max) = options.max_total_tokens {
            limits.max_total_tokens = Some(max);
        }
    }
    if let Some(deadline) = scope.deadline {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        limits.max_execution_time =
            Some(limits.max_execution_time.map_or(left, |own| own.min(left)));
    }
    if let Some(left) = scope.remaining_tokens {
        limits.max_total_tokens = Some(limits.max_total_tokens.map_or(left, |own| own.min(left)));
    }
    builder.parts.sub_agents = nested;
    builder.build()
}

/// The sub-agent's requests, named after it (a grandchild's as `child/grandchild`).
fn tagged(name: &str, requests: Vec<RequestUsage>) -> impl Iterator<Item = RequestUsage> + '_ {
    requests.into_iter().map(move |mut r| {
        r.agent = Some(match r.agent.take() {
            None => name.to_string(),
            Some(inner) => format!("{name}/{inner}"),
        });
        r
    })
}

/// What the parent model reads when the sub-agent stopped for review or at a question (a
/// tool's `Interrupt`, an external tool): a sub-agent's pause is not carried to its parent.
fn paused_message(name: &str) -> String {
    format!(
        "the `{name}` agent stopped for review or at a tool's question, which a sub-agent cannot do; go on without it"
    )
}

/// What the parent model reads when running the sub-agent would nest agents past the cap.
fn too_deep(name: &str, depth: u32) -> String {
    format!(
        "the `{name}` agent was not run: agents are already nested {depth} deep here, the most this run allows; answer with what you have"
    )
}

/// What the parent model reads when the sub-agent failed.
fn describe(name: &str, error: &RunError) -> String {
    match error.kind() {
        RunErrorKind::Paused { .. } => paused_message(name),
        RunErrorKind::LimitExceeded(limit) => format!(
            "the `{name}` agent stopped at a limit before answering ({limit}); ask it something smaller or go on without it"
        ),
        other => format!("the `{name}` agent could not answer: {other}"),
    }
}

impl<T, O, C, S> AgentBuilder<T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: 'static,
    S: 'static,
{
    /// Runs sub-agent `A` (an `#[agent]` listed in `tools(...)`) with other options: its own
    /// model, other limits. Without it, a sub-agent runs on this agent's model with its own
    /// limits, capped by what is left of this run's time and token budget.
    pub fn sub_agent<A: SubAgent>(mut self, options: super::SubAgentOptions) -> Self {
        self.parts.sub_agents.insert(A::NAME, options);
        self
    }

    /// How deep sub-agents may nest below this agent (default
    /// [`DEFAULT_MAX_SUB_AGENT_DEPTH`](super::DEFAULT_MAX_SUB_AGENT_DEPTH)): its own sub-agents
    /// are level 1, theirs level 2. A call that would run an agent deeper does not run it; the
    /// calling model reads a tool error saying so, within its retry budget. An agent that lists
    /// itself in `tools(...)` (a planner that splits a task and hands each part to a copy of
    /// itself) is bounded by this, and by what is left of the run's deadline and tokens. Set
    /// on the agent you run: a sub-agent's own setting is not read.
    ///
    /// ```
    /// use agentry::prelude::*;
    /// use agentry::testing::ScriptedModel;
    ///
    /// /// You split a task and hand the parts to a planner like you.
    /// #[agent(tools(Planner))]
    /// struct Planner;
    ///
    /// let planner = Planner::builder(ScriptedModel::new([])).max_sub_agent_depth(2).build();
    /// # let _ = planner;
    /// ```
    pub fn max_sub_agent_depth(mut self, max: u32) -> Self {
        self.parts.sub_agents.set_max_depth(max);
        self
    }
}
