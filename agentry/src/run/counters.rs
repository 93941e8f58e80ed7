//! [`Counters`]: the decision machine's counts as a value, so a snapshot can go on later.

use serde::{Deserialize, Serialize};

use crate::cost::Cost;
use crate::usage::Usage;

/// The machine's counters as a value: what a run snapshot stores to go on later.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Requests made.
    pub turns: u32,
    /// Usage counted by the machine.
    pub usage: Usage,
    /// Consecutive failures per tool name.
    pub tool_failures: Vec<(String, u32)>,
    /// Invalid final answers so far.
    pub output_failures: u32,
    /// What the requests cost, when the agent has a price table.
    #[serde(default)]
    pub cost: Cost,
}
