//! [`AgentBuilder`] and the built [`Agent`].

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::dyn_args::ArgsSchema;
use super::dyn_tool::{DynTool, SharedDynTool};
use super::instructions::{Instructions, InstructionsText};
use super::toolset::Toolset;
use crate::cost::{Cost, PriceTable};
use crate::guard::set::Guards;
use crate::middleware::{Chain, Middleware, SharedMiddleware};
use crate::model::{IntoSharedModel, ModelSettings, SharedModel};
use crate::output::{OutputSpec, TextOutput};
use crate::persist::Checkpointer;
use crate::protocol::ToolProtocol;
use crate::run::{LimitPolicy, RunPolicy, ToolErrorPolicy};
use crate::store::Store;
use crate::tool::DefinitionRef;

/// Configures an [`Agent`]. Made by `#[agent]`'s `builder`, or by [`AgentBuilder::new`].
///
/// ```
/// use agentry::agent::{AgentBuilder, LimitPolicy, NoTools};
/// use agentry::testing::{ScriptedModel, Turn};
/// use std::time::Duration;
///
/// let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("hi")]), NoTools)
///     .instructions("Be brief.")
///     .max_turns(4)
///     .max_execution_time(Duration::from_secs(30))
///     .on_limit(LimitPolicy::FinalAnswer)
///     .build();
/// assert_eq!(agent.policy().limits.max_turns, 4);
/// ```
pub struct AgentBuilder<T, O = TextOutput, C = (), S = ()> {
    pub(crate) parts: Parts<T, O, C, S>,
}

/// The pieces of an agent, shared by the builder and the agent.
pub(crate) struct Parts<T, O, C, S> {
    pub(crate) model: SharedModel,
    pub(crate) toolset: T,
    pub(crate) output: O,
    pub(crate) instructions: Instructions<C, S>,
    pub(crate) dyn_tools: Vec<SharedDynTool<C, S>>,
    pub(crate) policy: RunPolicy,
    pub(crate) settings: ModelSettings,
    pub(crate) max_parallel_tools: usize,
    pub(crate) tool_timeout: Option<Duration>,
    pub(crate) store: Option<Store>,
    pub(crate) middleware: Chain<C, S>,
    pub(crate) checkpointer: Option<Arc<dyn Checkpointer>>,
    /// Seals pauses and checks the seals of resumed ones.
    pub(crate) sealer: Option<Arc<crate::run::Sealer<S>>>,
    /// The protocol asked for; `None`: chosen from the model's profile at `build`.
    pub(crate) protocol: Option<ToolProtocol>,
    /// Options for sub-agents listed among the tools.
    pub(crate) sub_agents: crate::run::SubAgents,
    /// The agent's name (`gen_ai.agent.name` on its run spans).
    pub(crate) name: Option<Arc<str>>,
    /// Prices for `policy.limits.max_cost`.
    pub(crate) prices: Option<Arc<PriceTable>>,
    /// A sub-agent's run re-run for its parent's resume: the answers its first asking call
    /// takes (see `multi::agent_tool`).
    pub(crate) forwarded: Option<crate::tool::runtime::Forwarded>,
    /// Guardrails on the input, the output and the tool calls.
    pub(crate) guards: Guards<C>,
    /// The threads this agent ran last, decoded (see [`AgentBuilder::thread_cache`]).
    pub(crate) thread_cache: Arc<super::thread::ThreadCache>,
    /// When runs in its threads write their checkpoints.
    pub(crate) durability: super::thread::Durability,
}

/// The default cap on tool calls of one answer running at once.
pub const DEFAULT_MAX_PARALLEL_TOOLS: usize = 8;

impl<T, C, S> AgentBuilder<T, TextOutput, C, S>
where
    T: Toolset<C, S>,
{
    /// A builder for an agent with these tools, answering in text.
    pub fn new(model: impl IntoSharedModel, toolset: T) -> Self {
        AgentBuilder {
            parts: Parts {
                model: model.into_shared_model(),
                toolset,
                output: TextOutput,
                instructions: Instructions::None,
                dyn_tools: Vec::new(),
                policy: RunPolicy::default(),
                settings: ModelSettings::default(),
                max_parallel_tools: DEFAULT_MAX_PARALLEL_TOOLS,
                tool_timeout: None,
                store: None,
                middleware: Chain::default(),
                checkpointer: None,
                sealer: None,
                protocol: None,
                sub_agents: Default::default(),
                name: None,
                prices: None,
                forwarded: None,
                guards: Guards::default(),
                thread_cache: Arc::new(super::thread::ThreadCache::new(
                    super::thread::DEFAULT_THREAD_CACHE,
                )),
                durability: super::thread::Durability::Step,
            },
        }
    }
}

impl<T, O, C, S> AgentBuilder<T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: 'static,
    S: 'static,
{
    /// Sets how the final answer is requested and parsed (e.g. a
    /// structured output in a chosen mode).
    pub fn output<O2: OutputSpec>(self, output: O2) -> AgentBuilder<T, O2, C, S> {
        let p = self.parts;
        AgentBuilder {
            parts: Parts {
                model: p.model,
                toolset: p.toolset,
                output,
                instructions: p.instructions,
                dyn_tools: p.dyn_tools,
                policy: p.policy,
                settings: p.settings,
                max_parallel_tools: p.max_parallel_tools,
                tool_timeout: p.tool_timeout,
                store: p.store,
                middleware: p.middleware,
                checkpointer: p.checkpointer,
                sealer: p.sealer,
                protocol: p.protocol,
                sub_agents: p.sub_agents,
                name: p.name,
                prices: p.prices,
                forwarded: p.forwarded,
                guards: p.guards.for_output::<O2::Output>(),
                thread_cache: p.thread_cache,
                durability: p.durability,
            },
        }
    }

    /// Sets fixed instructions (the system message).
    pub fn instructions(mut self, text: impl InstructionsText) -> Self {
        self.parts.instructions = Instructions::text(text.into_text());
        self
    }

    /// Sets instructions computed from the context and current state before each request.
    pub fn dynamic_instructions(
        mut self,
        f: impl Fn(&C, &S) -> String + Send + Sync + 'static,
    ) -> Self {
        self.parts.instructions = Instructions::dynamic(f);
        self
    }

    /// Adds a tool known only at run time.
    pub fn dyn_tool(mut self, tool: impl DynTool<C, S>) -> Self {
        self.parts.dyn_tools.push(Arc::new(tool));
        self
    }

    /// Adds a shared tool known only at run time.
    pub fn shared_dyn_tool(mut self, tool: SharedDynTool<C, S>) -> Self {
        self.parts.dyn_tools.push(tool);
        self
    }

    /// Model requests per run (default 10).
    pub fn max_turns(mut self, max: u32) -> Self {
        self.parts.policy.limits.max_turns = max;
        self
    }

    /// Wall-clock time per run.
    pub fn max_execution_time(mut self, max: Duration) -> Self {
        self.parts.policy.limits.max_execution_time = Some(max);
        self
    }

    /// Input plus output tokens per run.
    pub fn max_total_tokens(mut self, max: u64) -> Self {
        self.parts.policy.limits.max_total_tokens = Some(max);
        self
    }

    /// What a run does at a limit (default: a typed error).
    pub fn on_limit(mut self, policy: LimitPolicy) -> Self {
        self.parts.policy.on_limit = policy;
        self
    }

    /// What a run does when a tool fails (default: tell the model).
    pub fn tool_errors(mut self, policy: ToolErrorPolicy) -> Self {
        self.parts.policy.tool_errors = policy;
        self
    }

    /// Consecutive failures of one tool sent back to the model before the run stops
    /// (default 3).
    pub fn max_tool_retries(mut self, max: u32) -> Self {
        self.parts.policy.max_tool_retries = max;
        self
    }

    /// Invalid final answers sent back for correction before the run stops (default 3).
    pub fn max_output_retries(mut self, max: u32) -> Self {
        self.parts.policy.max_output_retries = max;
        self
    }

    /// Tool calls of one answer that run at once (default 8; at least 1).
    pub fn max_parallel_tools(mut self, max: usize) -> Self {
        self.parts.max_parallel_tools = max.max(1);
        self
    }

    /// How long one tool call may take when its tool sets no timeout of its own
    /// (`#[tool(timeout = "5s")]` wins). A call that takes longer is cancelled (its future
    /// dropped) and reported as [`ToolCallError::TimedOut`](crate::ToolCallError::TimedOut):
    /// to the model within the tool's retry budget, or as a run error under
    /// [`ToolErrorPolicy::Propagate`].
    pub fn tool_timeout(mut self, after: Duration) -> Self {
        self.parts.tool_timeout = Some(after);
        self
    }

    /// Adds a middleware. `before_*` hooks run in the order middleware is added, `after_*`
    /// hooks in reverse, and `wrap_*` hooks nest with the first added outermost.
    pub fn middleware(mut self, middleware: impl Middleware<C, S>) -> Self
    where
        C: Send + Sync,
        S: Send + Sync,
    {
        self.parts.middleware.push(Arc::new(middleware));
        self
    }

    /// Adds a shared middleware (see [`AgentBuilder::middleware`]).
    pub fn shared_middleware(mut self, middleware: SharedMiddleware<C, S>) -> Self
    where
        C: Send + Sync,
        S: Send + Sync,
    {
        self.parts.middleware.push(middleware);
        self
    }

    /// How the tools reach the model: native function calling, or the ReAct text protocol
    /// (`ToolProtocol::react()`) for models without function calling. Without this, an agent
    /// with tools uses ReAct when its model's profile has no
    /// [`tool_calling`](crate::model::ModelProfile::tool_calling), native calling otherwise.
    ///
    /// ```
    /// use agentry::agent::{AgentBuilder, NoTools};
    /// use agentry::protocol::ToolProtocol;
    /// use agentry::testing::ScriptedModel;
    ///
    /// let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([]), NoTools)
    ///     .protocol(ToolProtocol::react())
    ///     .build();
    /// assert!(matches!(agent.protocol(), ToolProtocol::React(_)));
    /// ```
    pub fn protocol(mut self, protocol: ToolProtocol) -> Self {
        self.parts.protocol = Some(protocol);
        self
    }

    /// Names the agent: `gen_ai.agent.name` of its runs' `invoke_agent` spans (`#[agent]`
    /// names it after its type).
    pub fn name(mut self, name: impl Into<Arc<str>>) -> Self {
        self.parts.name = Some(name.into());
        self
    }

    /// Stops a run once its requests have cost `max` or more at `prices` (checked before
    /// each request, like the token budget: the request that crosses the limit completes).
    /// Each answer is priced by the model that answered it, else by the agent's model; a
    /// model the table does not price stops the run with
    /// [`RunErrorKind::Cost`](super::RunErrorKind::Cost) rather than run unbounded.
    ///
    /// ```
    /// use agentry::agent::{AgentBuilder, NoTools};
    /// use agentry::cost::{Cost, ModelPrice, PriceTable};
    /// use agentry::testing::{ScriptedModel, Turn};
    ///
    /// let prices = PriceTable::new().with("scripted", ModelPrice::new(0.15, 0.60));
    /// let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("hi")]), NoTools)
    ///     .max_cost(Cost::from_usd(0.50), prices)
    ///     .build();
    /// assert_eq!(agent.policy().limits.max_cost, Some(Cost::from_usd(0.50)));
    /// ```
    pub fn max_cost(mut self, max: Cost, prices: PriceTable) -> Self {
        self.parts.policy.limits.max_cost = Some(max);
        self.parts.prices = Some(Arc::new(prices));
        self
    }

    /// Gives tools a store.
    pub fn store(mut self, store: Store) -> Self {
        self.parts.store = Some(store);
        self
    }

    /// Saves runs in threads with this checkpointer: [`Agent::thread`] then runs the agent in
    /// a conversation that is loaded before each run and checkpointed after each model answer
    /// and each tool batch (see [`Thread`](super::Thread)). Plain [`Agent::run`] saves
    /// nothing.
    pub fn checkpointer(mut self, checkpointer: impl Checkpointer) -> Self {
        self.parts.checkpointer = Some(Arc::new(checkpointer));
        self
    }

    /// How many threads the agent keeps decoded between runs (default
    /// [`DEFAULT_THREAD_CACHE`](super::DEFAULT_THREAD_CACHE); 0 keeps none). A run on a thread
    /// the agent ran last loads only the messages written since, in one query, so its cost
    /// does not grow with the thread's length; each use is checked against the thread's
    /// newest checkpoint, so a step another worker wrote is seen (see
    /// [`Checkpointer::latest_since`](crate::persist::Checkpointer::latest_since)). Only
    /// the builder's checkpointer is cached, not one given to
    /// [`Agent::thread_in`](super::Agent::thread_in).
    pub fn thread_cache(mut self, capacity: usize) -> Self {
        self.parts.thread_cache = Arc::new(super::thread::ThreadCache::new(capacity));
        self
    }

    /// When runs in this agent's threads write their checkpoints: at every step (the
    /// default, [`Durability::Step`](super::Durability::Step)), or once when a run ends
    /// ([`Durability::Exit`](super::Durability::Exit)). One run can choose otherwise with
    /// [`Thread::durability`](super::Thread::durability).
    pub fn durability(mut self, durability: super::Durability) -> Self {
        self.parts.durability = durability;
        self
    }

    /// [`AgentBuilder::checkpointer`] with a checkpointer shared with other agents or code.
    pub fn shared_checkpointer(mut self, checkpointer: Arc<dyn Checkpointer>) -> Self {
        self.parts.checkpointer = Some(checkpointer);
        self
    }

    /// Seals every pause with `key` (HMAC-SHA256, see [`PauseKey`](crate::agent::PauseKey)
    /// for what is covered), and makes [`Agent::resume`] refuse a pause whose seal is missing
    /// ([`ResumeError::Unsealed`](crate::agent::ResumeError::Unsealed)) or does not match
    /// ([`ResumeError::BadSeal`](crate::agent::ResumeError::BadSeal)).
    ///
    /// ```
    /// use agentry::agent::{AgentBuilder, NoTools, PauseKey};
    /// use agentry::testing::{ScriptedModel, Turn};
    ///
    /// let key = PauseKey::new(*b"0123456789abcdef0123456789abcdef");
    /// let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("hi")]), NoTools)
    ///     .pause_key(key)
    ///     .build();
    /// assert!(!format!("{agent:?}").contains("0123456789abcdef"));
    /// ```
    pub fn pause_key(mut self, key: crate::agent::PauseKey) -> Self
    where
        S: serde::Serialize,
    {
        self.parts.sealer = Some(Arc::new(crate::run::Sealer {
            key,
            to_json: |pause| serde_json::to_value(pause),
        }));
        self
    }

    /// The agent.
    pub fn build(self) -> Agent<T, O, C, S> {
        let mut definitions = self.parts.toolset.definitions();
        let mut dyn_schemas = Vec::with_capacity(self.parts.dyn_tools.len());
        for tool in &self.parts.dyn_tools {
            let def = tool.definition();
            dyn_schemas.push(ArgsSchema::compile(&def));
            if definitions.iter().any(|d| d.name == def.name) {
                tracing::warn!(tool = %def.name, "dynamic tool shadowed by a tool of the same name; it will not be offered");
                continue;
            }
            definitions.push(def);
        }
        for (by, tool) in self.parts.middleware.reviewed_tools() {
            if !definitions.iter().any(|d| d.name == *tool) {
                tracing::warn!(
                    middleware = %by,
                    tool = %tool,
                    "a middleware reviews a tool this agent does not have: no call of it will come, so the review never pauses; add the tool to the agent, or correct the name"
                );
            }
        }
        let mut parts = self.parts;
        let protocol = parts.protocol.take().unwrap_or_else(|| {
            if definitions.is_empty() {
                ToolProtocol::Native
            } else {
                ToolProtocol::for_profile(parts.model.profile())
            }
        });
        parts.model = protocol.wrap(parts.model);
        Agent {
            parts,
            definitions: definitions.into(),
            dyn_schemas,
            protocol,
        }
    }
}

/// A configured agent: a model, tools, an output type, context `C` and state `S`.
///
/// Run it with [`Agent::run`], [`Agent::stream`] or [`Agent::batch`]. An agent is immutable
/// and can run many times, concurrently.
pub struct Agent<T, O = TextOutput, C = (), S = ()> {
    pub(crate) parts: Parts<T, O, C, S>,
    pub(crate) definitions: crate::model::Tools,
    /// The compiled argument schema of each dynamic tool, in `parts.dyn_tools` order.
    pub(crate) dyn_schemas: Vec<ArgsSchema>,
    /// How the tools reach the model (the model is wrapped for ReAct).
    pub(crate) protocol: ToolProtocol,
}

impl<T, O, C, S> Agent<T, O, C, S> {
    /// The agent's name, if it has one ([`AgentBuilder::name`]).
    pub fn name(&self) -> Option<&str> {
        self.parts.name.as_deref()
    }

    /// The decisions' configuration: limits and policies.
    pub fn policy(&self) -> &RunPolicy {
        &self.parts.policy
    }

    /// How the tools reach the model.
    pub fn protocol(&self) -> &ToolProtocol {
        &self.protocol
    }

    /// The model (for ReAct, the [`ReactModel`](crate::protocol::react::ReactModel) wrapping
    /// the one given to the builder).
    pub fn model(&self) -> &SharedModel {
        &self.parts.model
    }

    /// The definitions of every tool offered to the model (static, then dynamic).
    pub fn tool_definitions(&self) -> &[DefinitionRef] {
        &self.definitions
    }

    /// The instructions.
    pub fn instructions(&self) -> &Instructions<C, S> {
        &self.parts.instructions
    }

    /// The request settings sent on every request of a run (middleware may change them for
    /// one request in `before_model`).
    pub fn model_settings(&self) -> &ModelSettings {
        &self.parts.settings
    }
}

impl<T, O, C, S> fmt::Debug for Agent<T, O, C, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("model", &self.parts.model.model_name())
            .field(
                "tools",
                &self
                    .definitions
                    .iter()
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>(),
            )
            .field("instructions", &self.parts.instructions)
            .field("policy", &self.parts.policy)
            .field("context", &std::any::type_name::<C>())
            .field("state", &std::any::type_name::<S>())
            .finish_non_exhaustive()
    }
}
