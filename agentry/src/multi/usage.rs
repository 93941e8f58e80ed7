//! Usage per agent of a run with sub-agents.

use std::collections::BTreeMap;

use crate::agent::RequestUsage;
use crate::usage::Usage;

/// The usage of each agent of a run, from its per-request usage: `None` is the run's own
/// agent, `Some("researcher")` a sub-agent, `Some("researcher/fact_checker")` a
/// sub-agent's sub-agent. The values add up to the run's total.
///
/// ```
/// use agentry::Usage;
/// use agentry::agent::RequestUsage;
/// use agentry::multi::usage_by_agent;
///
/// let one = Usage { input_tokens: 10, output_tokens: 1, requests: 1, ..Usage::default() };
/// let requests = [
///     RequestUsage { model: "m".into(), usage: one, agent: None },
///     RequestUsage { model: "m".into(), usage: one, agent: Some("researcher".into()) },
///     RequestUsage { model: "m".into(), usage: one, agent: Some("researcher".into()) },
/// ];
/// let by_agent = usage_by_agent(&requests);
/// assert_eq!(by_agent[&None].requests, 1);
/// assert_eq!(by_agent[&Some("researcher")].input_tokens, 20);
/// ```
pub fn usage_by_agent(requests: &[RequestUsage]) -> BTreeMap<Option<&str>, Usage> {
    let mut by_agent: BTreeMap<Option<&str>, Usage> = BTreeMap::new();
    for request in requests {
        *by_agent.entry(request.agent.as_deref()).or_default() += request.usage;
    }
    by_agent
}

impl<T, S> crate::agent::RunResult<T, S> {
    /// The usage of each agent of this run (see [`usage_by_agent`]).
    pub fn usage_by_agent(&self) -> BTreeMap<Option<&str>, Usage> {
        usage_by_agent(&self.request_usage)
    }
}
