//! Compile-time checks that `#[agent]` expansions make once per tool, at the user's token.
//! Not a public API: it may change in any release.
//!
//! A tool listed in `tools(...)` is checked for being a tool where its name is written (through
//! its `Tool::NAME`); whether it fits the agent's context and state is checked with
//! [`ToolProbe`], which picks [`IsTool::fits_agent`] only for tools (auto-ref probing), so a
//! type that is not a tool at all is not reported a second time as a context mismatch.

use std::marker::PhantomData;

use crate::tool::{CallTool, Tool};

/// Probes a listed type: `(&ToolProbe::<T>::new()).probe()` is an [`IsTool`] for tools and a
/// [`NotTool`] for anything else.
pub struct ToolProbe<T>(PhantomData<fn() -> T>);

impl<T> ToolProbe<T> {
    /// A probe for `T`.
    pub const fn new() -> Self {
        ToolProbe(PhantomData)
    }
}

impl<T> Default for ToolProbe<T> {
    fn default() -> Self {
        ToolProbe::new()
    }
}

/// Chosen when the probed type is a tool.
pub trait ProbeTool<T> {
    /// The tool, to check against the agent.
    fn probe(&self) -> IsTool<T>;
}

impl<T: Tool> ProbeTool<T> for ToolProbe<T> {
    fn probe(&self) -> IsTool<T> {
        IsTool(PhantomData)
    }
}

/// Chosen for anything else (already reported as "not a tool").
pub trait ProbeOther {
    /// Nothing left to check.
    fn probe(&self) -> NotTool {
        NotTool
    }
}

impl<T> ProbeOther for &ToolProbe<T> {}

/// A listed tool.
pub struct IsTool<T>(PhantomData<fn() -> T>);

impl<T> IsTool<T> {
    /// Checks that the tool can run with the agent's context `C` and state `S`.
    pub fn fits_agent<C, S>(self)
    where
        T: CallTool<C, S>,
    {
    }
}

/// A listed type that is not a tool.
pub struct NotTool;

impl NotTool {
    /// Nothing to check.
    pub fn fits_agent<C, S>(self) {}
}
