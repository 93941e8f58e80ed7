//! [`RunScope`]: what a sub-agent run from a tool call inherits from the parent run.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::result::RequestUsage;
use super::sub_agent::SubAgentEvent;
use crate::model::{IntoSharedModel, SharedModel};
use crate::tool::ToolRuntime;
use crate::usage::Usage;

/// How a parent agent runs one of its sub-agents: another model, other limits.
///
/// Set with [`AgentBuilder::sub_agent`](crate::agent::AgentBuilder::sub_agent). Whatever is
/// not set is inherited: the parent's model, the sub-agent's own limits (from its
/// `#[agent(...)]`) capped by what is left of the parent's time and token budget.
///
/// ```
/// use agentry::multi::SubAgentOptions;
/// use agentry::testing::{ScriptedModel, Turn};
/// use std::time::Duration;
///
/// let options = SubAgentOptions::new()
///     .model(ScriptedModel::new([Turn::text("notes")]))
///     .max_turns(3)
///     .max_execution_time(Duration::from_secs(20));
/// assert_eq!(options.max_turns_override(), Some(3));
/// ```
#[derive(Clone, Default)]
pub struct SubAgentOptions {
    pub(crate) model: Option<SharedModel>,
    pub(crate) max_turns: Option<u32>,
    pub(crate) max_execution_time: Option<Duration>,
    pub(crate) max_total_tokens: Option<u64>,
}

impl SubAgentOptions {
    /// Nothing overridden.
    pub fn new() -> Self {
        SubAgentOptions::default()
    }

    /// Runs the sub-agent on `model` instead of the parent's.
    pub fn model(mut self, model: impl IntoSharedModel) -> Self {
        self.model = Some(model.into_shared_model());
        self
    }

    /// Model requests per sub-agent run (instead of the sub-agent's own `max_turns`).
    pub fn max_turns(mut self, max: u32) -> Self {
        self.max_turns = Some(max);
        self
    }

    /// Wall-clock time per sub-agent run (still capped by the parent's deadline).
    pub fn max_execution_time(mut self, max: Duration) -> Self {
        self.max_execution_time = Some(max);
        self
    }

    /// Tokens per sub-agent run (still capped by what is left of the parent's budget).
    pub fn max_total_tokens(mut self, max: u64) -> Self {
        self.max_total_tokens = Some(max);
        self
    }

    /// The `max_turns` override, if any.
    pub fn max_turns_override(&self) -> Option<u32> {
        self.max_turns
    }
}

impl std::fmt::Debug for SubAgentOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubAgentOptions")
            .field("model", &self.model.as_ref().map(|m| m.model_name()))
            .field("max_turns", &self.max_turns)
            .field("max_execution_time", &self.max_execution_time)
            .field("max_total_tokens", &self.max_total_tokens)
            .finish()
    }
}

/// How deep sub-agents nest unless the top agent's builder says otherwise
/// ([`AgentBuilder::max_sub_agent_depth`](crate::agent::AgentBuilder::max_sub_agent_depth)).
pub const DEFAULT_MAX_SUB_AGENT_DEPTH: u32 = 8;

/// The per-sub-agent options of an agent, by tool name, and how deep it runs; shared with
/// its sub-agents so a grandchild is configured, and its nesting capped, from the top.
#[derive(Clone)]
pub(crate) struct SubAgents {
    options: Arc<HashMap<&'static str, SubAgentOptions>>,
    /// How deep the agent holding these runs: 0 at the top, 1 for its sub-agents, ...
    depth: u32,
    /// How deep a sub-agent may run.
    max_depth: u32,
}

impl Default for SubAgents {
    fn default() -> Self {
        SubAgents {
            options: Arc::default(),
            depth: 0,
            max_depth: DEFAULT_MAX_SUB_AGENT_DEPTH,
        }
    }
}

impl SubAgents {
    pub(crate) fn insert(&mut self, name: &'static str, options: SubAgentOptions) {
        Arc::make_mut(&mut self.options).insert(name, options);
    }

    pub(crate) fn get(&self, name: &str) -> Option<&SubAgentOptions> {
        self.options.get(name)
    }

    pub(crate) fn set_max_depth(&mut self, max: u32) {
        self.max_depth = max;
    }

    /// How deep the agent holding these runs (0 at the top).
    pub(crate) fn depth(&self) -> u32 {
        self.depth
    }

    /// The options a sub-agent of this agent runs with: the same, one level deeper; `None`
    /// when that level is past the cap.
    pub(crate) fn nested(&self) -> Option<SubAgents> {
        let depth = self.depth.checked_add(1).filter(|d| *d <= self.max_depth)?;
        Some(SubAgents {
            options: Arc::clone(&self.options),
            depth,
            max_depth: self.max_depth,
        })
    }
}

/// Where a sub-agent's nested stream events go (into the parent's stream).
pub(crate) type EventSink = Arc<dyn Fn(SubAgentEvent) + Send + Sync>;

/// What one batch of a parent run's tool calls hands to the sub-agents they run.
pub(crate) struct RunScope {
    /// The parent's model: a sub-agent's default.
    pub(crate) model: SharedModel,
    pub(crate) sub_agents: SubAgents,
    /// The parent's deadline.
    pub(crate) deadline: Option<Instant>,
    /// Tokens left in the parent's budget when the batch started.
    pub(crate) remaining_tokens: Option<u64>,
    /// Requests made by sub-agents of this batch, tagged with the agent's name.
    pub(crate) usage: Mutex<Vec<RequestUsage>>,
    /// The parent's stream, when it is streamed.
    pub(crate) events: Option<EventSink>,
}

impl RunScope {
    /// A scope with only a model (a runtime built by hand).
    pub(crate) fn with_model(model: SharedModel) -> Self {
        RunScope {
            model,
            sub_agents: SubAgents::default(),
            deadline: None,
            remaining_tokens: None,
            usage: Mutex::new(Vec::new()),
            events: None,
        }
    }

    /// The scope of one tool batch of a parent run.
    pub(crate) fn for_batch(
        model: SharedModel,
        sub_agents: SubAgents,
        deadline: Option<Instant>,
        max_total_tokens: Option<u64>,
        used: Usage,
        events: Option<EventSink>,
    ) -> Arc<Self> {
        Arc::new(RunScope {
            model,
            sub_agents,
            deadline,
            remaining_tokens: max_total_tokens.map(|max| max.saturating_sub(used.total_tokens())),
            usage: Mutex::new(Vec::new()),
            events,
        })
    }

    /// Records the requests a sub-agent made.
    pub(crate) fn record(&self, requests: impl IntoIterator<Item = RequestUsage>) {
        crate::tool::runtime::lock(&self.usage).extend(requests);
    }

    /// Moves the sub-agents' usage into the parent run: its total and its per-request list.
    /// Returns the usage added, for the machine's count (so the parent's token limit sees it).
    pub(crate) fn absorb(&self, usage: &mut Usage, request_usage: &mut Vec<RequestUsage>) -> Usage {
        let requests = std::mem::take(&mut *crate::tool::runtime::lock(&self.usage));
        let added: Usage = requests.iter().map(|r| r.usage).sum();
        *usage += added;
        request_usage.extend(requests);
        added
    }
}

// A tool call's runtime carries its run's scope in a slot the `tool` room does not name (it
// sits below this one); only these methods put a `RunScope` there and read it back.
impl<C, S> ToolRuntime<C, S> {
    /// Gives sub-agents run by this call `model` (and nothing else of a parent run: no
    /// budget, no usage roll-up, no event nesting). The agent runtime sets the whole parent
    /// scope itself; this is for calling an agent tool by hand, e.g. in a test.
    pub fn with_model(self, model: impl IntoSharedModel) -> Self {
        self.with_scope(Arc::new(RunScope::with_model(model.into_shared_model())))
    }

    pub(crate) fn with_scope(self, scope: Arc<RunScope>) -> Self {
        self.with_scope_slot(scope)
    }

    /// The run's scope, if this call belongs to one (or [`ToolRuntime::with_model`] set it).
    pub(crate) fn scope(&self) -> Option<Arc<RunScope>> {
        self.scope_slot()
            .and_then(|slot| Arc::clone(slot).downcast::<RunScope>().ok())
    }
}
