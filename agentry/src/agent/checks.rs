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

/// What a tool writes through its [`StreamWriter`](crate::StreamWriter): `#[tool]` implements
/// it for a tool taking one (a tool without a writer, or written by hand, has no impl and
/// fits every agent).
pub trait ToolEvents {
    /// The writer's event type.
    type Event;
}

/// The event type of a writer type: `StreamWriter<E>` writes `E` (`StreamWriter` alone,
/// JSON).
pub trait WriterEvent {
    /// The writer's event type.
    type Event;
}

impl<E> WriterEvent for crate::StreamWriter<E> {
    type Event = E;
}

/// Probes a listed tool's events: `(&EventsProbe::<T>::new()).probe_events()` is a
/// [`WritesEvents`] for a tool with a writer and [`WritesNothing`] otherwise.
pub struct EventsProbe<T>(PhantomData<fn() -> T>);

impl<T> EventsProbe<T> {
    /// A probe for `T`.
    pub const fn new() -> Self {
        EventsProbe(PhantomData)
    }
}

impl<T> Default for EventsProbe<T> {
    fn default() -> Self {
        EventsProbe::new()
    }
}

/// Chosen when the probed tool writes events.
pub trait ProbeEvents<T> {
    /// The tool's events, to check against the agent's.
    fn probe_events(&self) -> WritesEvents<T>;
}

impl<T: ToolEvents> ProbeEvents<T> for EventsProbe<T> {
    fn probe_events(&self) -> WritesEvents<T> {
        WritesEvents(PhantomData)
    }
}

/// Chosen for a tool that writes nothing (or is not a tool: reported elsewhere).
pub trait ProbeNoEvents {
    /// Nothing to check.
    fn probe_events(&self) -> WritesNothing {
        WritesNothing
    }
}

impl<T> ProbeNoEvents for &EventsProbe<T> {}

/// A listed tool that writes events.
pub struct WritesEvents<T>(PhantomData<fn() -> T>);

impl<T: ToolEvents> WritesEvents<T> {
    /// Checks that the tool writes the agent's event type `E`.
    pub fn fit_events<E>(self)
    where
        T::Event: EventsFit<E>,
    {
    }
}

/// A listed tool that writes no events.
pub struct WritesNothing;

impl WritesNothing {
    /// Nothing to check.
    pub fn fit_events<E>(self) {}
}

/// A tool writing events of type `Self` fits an agent whose events are `E`: only when they are
/// the same type.
#[diagnostic::on_unimplemented(
    message = "this tool writes `{Self}` events, but the agent's events are `{E}`",
    label = "this tool's `StreamWriter<{Self}>` does not fit the agent",
    note = "an agent's stream has one event type: declare it with `#[agent(events = {Self})]`, or give every tool of the agent a `StreamWriter<{E}>`"
)]
pub trait EventsFit<E> {}

impl<E> EventsFit<E> for E {}
