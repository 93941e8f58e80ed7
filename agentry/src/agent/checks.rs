//! Compile-time checks that `#[agent]` expansions make once per tool, at the user's token.
//! Not a public API: it may change in any release.
//!
//! A tool listed in `tools(...)` is checked for being a tool where its name is written (through
//! its `Tool::NAME`); whether it fits the agent's context and state is checked with
//! [`AgentProbe`], which picks [`IsTool::fits_agent`] only for tools of an agent whose context
//! and state are thread-safe (auto-ref probing), so a type that is not a tool at all is not
//! reported a second time as a context mismatch, nor a context that is not `Send + Sync` once
//! more at every tool.

use std::marker::PhantomData;

use crate::tool::{CallTool, Tool};

/// Probes a listed type for how the agent makes it: `(&&ToolProbe::<T>::new()).probe_make()`
/// is the sub-agent's own `make_tool` for a sub-agent with fields ([`ProbeMakeSubAgent`]),
/// `T::default()` for another tool ([`ProbeMake`]) and never returns for anything else
/// ([`ProbeNoMake`], already a compile error).
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

/// Probes a listed tool in an agent with context `C` and state `S`, for both questions the
/// expansion asks (auto-ref probing):
/// - `(&AgentProbe::<T, C, S>::new()).probe()` is an [`IsTool`] for a tool in an agent whose
///   context and state are thread-safe, to check that it fits, and a [`NotTool`] otherwise;
/// - `(&AgentProbe::<T, C, S>::new()).probe_call()` is a [`Calls`] when `T` runs with context
///   `C` and state `S` (both thread-safe), and a [`CannotCall`] otherwise. The agent's
///   `Toolset` calls its tools through it.
///
/// So a tool that does not fit is reported once, by [`IsTool::fits_agent`], where it is
/// listed, and not again at every use of the agent; a type that is not a tool is reported
/// where it is listed; a context or state that is not `Send + Sync` is reported where the
/// agent's builder is asked for, and not again at each tool.
pub struct AgentProbe<T, C, S>(Marker<(T, C, S)>);

impl<T, C, S> AgentProbe<T, C, S> {
    /// A probe for `T` in an agent with context `C` and state `S`.
    pub const fn new() -> Self {
        AgentProbe(PhantomData)
    }
}

impl<T, C, S> Default for AgentProbe<T, C, S> {
    fn default() -> Self {
        AgentProbe::new()
    }
}

/// Chosen when the probed type is a tool and the agent's context and state are thread-safe.
pub trait ProbeTool<T> {
    /// The tool, to check against the agent.
    fn probe(&self) -> IsTool<T>;
}

impl<T: Tool, C: Send + Sync, S: Send + Sync> ProbeTool<T> for AgentProbe<T, C, S> {
    fn probe(&self) -> IsTool<T> {
        IsTool(PhantomData)
    }
}

/// Chosen for anything else (already reported: as "not a tool", or at the builder of an
/// agent whose context or state is not thread-safe).
pub trait ProbeOther {
    /// Nothing left to check.
    fn probe(&self) -> NotTool {
        NotTool
    }
}

impl<T, C, S> ProbeOther for &AgentProbe<T, C, S> {}

/// A sub-agent with fields: `#[agent(as_tool)]` implements it with a `make_tool` that needs
/// no bound (its `Clone + Default` are checked, as one error, where it is declared), so a
/// parent listing it adds no second error.
pub trait MadeBySubAgent: Sized {
    /// The sub-agent, made with its `Default`.
    fn make_tool() -> Self;
}

/// Chosen first: makes a sub-agent with fields.
pub trait ProbeMakeSubAgent<T> {
    /// The sub-agent.
    fn probe_make(&self) -> T;
}

impl<T: MadeBySubAgent> ProbeMakeSubAgent<T> for &ToolProbe<T> {
    fn probe_make(&self) -> T {
        T::make_tool()
    }
}

/// Chosen when the probed type is any other tool: makes a tool listed by path with `Default`
/// (a tool that has no `Default` is reported here, at the user's token).
pub trait ProbeMake<T> {
    /// The tool.
    fn probe_make(&self) -> T
    where
        T: Default;
}

impl<T: Tool> ProbeMake<T> for &&ToolProbe<T> {
    fn probe_make(&self) -> T
    where
        T: Default,
    {
        T::default()
    }
}

/// Chosen for a listed type that is not a tool: the program does not compile (the type is
/// reported where it is listed), so this is never called.
pub trait ProbeNoMake<T> {
    /// Never returns.
    fn probe_make(&self) -> T {
        unreachable!("a listed type that is not a tool is a compile error")
    }
}

impl<T> ProbeNoMake<T> for ToolProbe<T> {}

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

/// Names types without owning them.
type Marker<T> = PhantomData<fn() -> T>;

/// Chosen when the tool fits the agent.
pub trait ProbeCall<T, C, S> {
    /// The way to call the tool.
    fn probe_call(&self) -> Calls<T, C, S>;
}

impl<T: CallTool<C, S>, C: Send + Sync, S: Send + Sync> ProbeCall<T, C, S> for AgentProbe<T, C, S> {
    fn probe_call(&self) -> Calls<T, C, S> {
        Calls(PhantomData)
    }
}

/// Chosen for a tool that does not fit (already a compile error).
pub trait ProbeCannotCall {
    /// No way to call the tool.
    fn probe_call(&self) -> CannotCall {
        CannotCall
    }
}

impl<T, C, S> ProbeCannotCall for &AgentProbe<T, C, S> {}

/// A tool that fits the agent.
pub struct Calls<T, C, S>(Marker<(T, C, S)>);

impl<T: CallTool<C, S>, C: Send + Sync, S: Send + Sync> Calls<T, C, S> {
    /// Calls the tool, which the returned future owns.
    // Not an `async fn`: the signature states that the future is `Send`.
    #[allow(clippy::manual_async_fn)]
    pub fn call<'a>(
        self,
        tool: T,
        args: T::Args,
        runtime: &'a crate::ToolRuntime<C, S>,
    ) -> impl Future<Output = Result<crate::ToolOutput, crate::ToolCallError>> + Send + 'a {
        async move { tool.call(args, runtime).await }
    }
}

/// A tool that does not fit the agent: the program does not compile (a mismatch is reported
/// where the tool is listed; a context or state that is not thread-safe where the agent's
/// builder is asked for, which then does not exist), so this is never called.
pub struct CannotCall;

impl CannotCall {
    /// Fails the call.
    pub fn call<T, A, R>(
        self,
        tool: T,
        args: A,
        runtime: &R,
    ) -> std::future::Ready<Result<crate::ToolOutput, crate::ToolCallError>> {
        let _ = (tool, args, runtime);
        std::future::ready(Err(crate::ToolCallError::Inject {
            tool: std::any::type_name::<T>().to_string(),
            source: crate::tool::InjectError::new::<T>(
                "the tool does not fit the agent's context or state",
            ),
        }))
    }
}

/// What a `#[tool(return_direct)]` tool returns (its `Ok` type): `#[tool]` implements it
/// unless the result is text or JSON, which any agent output can be read from.
pub trait ReturnsDirect {
    /// The tool's result type.
    type Output;
}

/// A `return_direct` tool's result `Self` can end a run whose output is `O`: only when it is
/// `O`.
#[diagnostic::on_unimplemented(
    message = "this `return_direct` tool returns `{Self}`, but the agent's output is `{O}`",
    label = "its result would end every run, and cannot be read as a `{O}`",
    note = "a `return_direct` tool's result is the run's output: return `{O}` (or a `String` or `serde_json::Value` holding its JSON), or remove `return_direct`"
)]
pub trait DirectOutput<O> {}

impl<O> DirectOutput<O> for O {}

/// Probes a listed tool's direct result: `(&DirectProbe::<T>::new()).probe_direct()` is a
/// [`ReturnsOutput`] for a `return_direct` tool with a typed result and [`ReturnsNothing`]
/// otherwise.
pub struct DirectProbe<T>(PhantomData<fn() -> T>);

impl<T> DirectProbe<T> {
    /// A probe for `T`.
    pub const fn new() -> Self {
        DirectProbe(PhantomData)
    }
}

impl<T> Default for DirectProbe<T> {
    fn default() -> Self {
        DirectProbe::new()
    }
}

/// Chosen when the probed tool returns a typed result directly.
pub trait ProbeDirect<T> {
    /// The tool's result, to check against the agent's output.
    fn probe_direct(&self) -> ReturnsOutput<T>;
}

impl<T: ReturnsDirect> ProbeDirect<T> for DirectProbe<T> {
    fn probe_direct(&self) -> ReturnsOutput<T> {
        ReturnsOutput(PhantomData)
    }
}

/// Chosen for any other tool.
pub trait ProbeNoDirect {
    /// Nothing to check.
    fn probe_direct(&self) -> ReturnsNothing {
        ReturnsNothing
    }
}

impl<T> ProbeNoDirect for &DirectProbe<T> {}

/// A `return_direct` tool with a typed result.
pub struct ReturnsOutput<T>(PhantomData<fn() -> T>);

impl<T: ReturnsDirect> ReturnsOutput<T> {
    /// Checks that the tool's result is the agent's output `O`.
    pub fn fit_output<O>(self)
    where
        T::Output: DirectOutput<O>,
    {
    }
}

/// Any other tool.
pub struct ReturnsNothing;

impl ReturnsNothing {
    /// Nothing to check.
    pub fn fit_output<O>(self) {}
}
