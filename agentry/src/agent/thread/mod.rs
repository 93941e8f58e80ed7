//! Running an agent in a thread: [`Thread`], its journal of checkpoints and crash recovery.

mod cache;
mod cancel;
mod durability;
pub use durability::Durability;
mod go;
mod heartbeat;
mod inspect;
pub use inspect::ThreadSnapshot;
mod journal;
mod orphans;
mod recover;

use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::builder::Agent;
use super::driver::{Sinks, drive_saving};
use super::dyn_tool::DynTool;
use super::input::Input;
use super::outcome_future::OutcomeFuture;
use super::resume::Start;
use super::run::{RunOutcome, finished};
use super::single_use::InThread;
use super::stream::AgentStream;
use super::toolset::Toolset;
use crate::agent::{IntoContext, IntoInput};
use crate::message::{Message, ToolCall};
use crate::middleware::{Decision, IntoDecision};
use crate::output::OutputSpec;
use crate::persist::{Checkpoint, Checkpointer, Lease, ThreadInfo};
use crate::run::{Outcome, Pause};
use crate::run::{PartialRun, RunError, RunErrorKind};
use crate::run::{RunSnapshot, collect_decisions};

pub(super) use crate::run::{ThreadError, ThreadStatus};
pub use cache::DEFAULT_THREAD_CACHE;
pub(crate) use cache::ThreadCache;
pub use cancel::CANCELLED;
use heartbeat::Keeper;
pub(crate) use journal::{Journal, SavePoint};
use journal::{RunInfo, RunStatus, ThreadJournal};
pub use orphans::Orphan;
pub use recover::NOT_COMPLETED;
pub(crate) use recover::{minus, saved_result};

/// A state type that can be saved in a thread: `Serialize + DeserializeOwned` (derive both).
/// Only runs in a thread need it.
#[diagnostic::on_unimplemented(
    message = "the state `{Self}` cannot be saved in a thread: it needs `Serialize` and `Deserialize`",
    label = "this agent's state",
    note = "add `#[derive(serde::Serialize, serde::Deserialize)]` to `{Self}`, or run without a thread (`agent.run(..)`), which does not save the state"
)]
pub trait ThreadState: Serialize + DeserializeOwned + Send + Sync + 'static {}

#[diagnostic::do_not_recommend]
impl<S: Serialize + DeserializeOwned + Send + Sync + 'static> ThreadState for S {}

/// Running an agent in a thread: a conversation saved by a
/// [`Checkpointer`](crate::persist::Checkpointer), continued across requests and processes,
/// and recovered after a crash.
///
/// Build the agent with [`AgentBuilder::checkpointer`](super::AgentBuilder::checkpointer),
/// then [`Agent::thread`] names a conversation. Each run loads the thread's messages and typed
/// state, appends the new input and saves a checkpoint — atomically, messages append-only —
/// when the input is in, after each model answer that calls tools, after that answer's
/// tool batch, and when the run ends (finished, failed, or paused for review, the
/// [`Pause`](super::Pause) stored in the checkpoint so the approval can come from another
/// process).
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use agentry::agent::{AgentBuilder, NoTools};
/// use agentry::persist::InMemoryCheckpointer;
/// use agentry::testing::{ScriptedModel, Turn};
///
/// let model = ScriptedModel::new([Turn::text("Hello, Ada."), Turn::text("Your name is Ada.")]);
/// let agent = AgentBuilder::<_, _, (), ()>::new(model, NoTools)
///     .checkpointer(InMemoryCheckpointer::default())
///     .build();
/// agent.thread("user-7").run("I am Ada.", ()).await.unwrap();
/// let run = agent.thread("user-7").run("What is my name?", ()).await.unwrap();
/// assert_eq!(run.messages.len(), 4); // the first exchange, then the second
/// assert_eq!(agent.thread("user-7").messages().await.unwrap().len(), 4);
/// # });
/// ```
///
/// # Crashes: at-most-once and at-least-once
///
/// A run whose process died leaves its thread [`Running`](ThreadStatus::Running);
/// [`Thread::recover`] goes on from the newest checkpoint:
/// - a tool result that was saved is never produced again: the call does not run again;
/// - a call that was in flight (its answer saved, its batch's results not) runs again only
///   when its tool is idempotent — `#[tool(idempotent)]`, [`Tool::IDEMPOTENT`](crate::Tool),
///   [`DynTool::is_idempotent`](super::DynTool::is_idempotent),
///   [`FnTool::idempotent`](super::FnTool::idempotent). Such tools are run **at least once**;
/// - any other in-flight call is **at most once**: it is not run again, and the model reads
///   that it did not complete ([`NOT_COMPLETED`]) and may have taken effect.
///
/// The results of an answer's calls are saved together, once the whole batch is done.
///
/// Made by [`Agent::thread`].
pub struct Thread<'a, T, O, C, S> {
    agent: &'a Agent<T, O, C, S>,
    checkpointer: Option<Arc<dyn Checkpointer>>,
    id: String,
    lease: Option<Lease>,
    /// The TTL the heartbeat renews the lease for.
    lease_ttl: Duration,
    /// The agent's cache of decoded threads, for its own checkpointer.
    cache: Option<&'a ThreadCache>,
    /// When the run writes its checkpoints.
    durability: Durability,
}

impl<T, O, C, S> std::fmt::Debug for Thread<'_, T, O, C, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Thread")
            .field("id", &self.id)
            .field("lease", &self.lease)
            .field("durability", &self.durability)
            .finish_non_exhaustive()
    }
}

impl<T, O, C, S> Agent<T, O, C, S> {
    /// The conversation `id` in this agent's checkpointer (see [`Thread`]).
    /// Without a checkpointer, every call on it fails with [`ThreadError::NoCheckpointer`].
    /// (`S: ThreadState` is asked by the thread's methods, not here: a state without serde
    /// derives is one error, at the call that would save it.)
    pub fn thread(&self, id: impl Into<String>) -> Thread<'_, T, O, C, S> {
        Thread {
            agent: self,
            checkpointer: self.parts.checkpointer.clone(),
            id: id.into(),
            lease: None,
            lease_ttl: Duration::ZERO,
            cache: Some(&self.parts.thread_cache),
            durability: self.parts.durability,
        }
    }

    /// The conversation `id` in `checkpointer` (instead of the builder's).
    pub fn thread_in(
        &self,
        checkpointer: Arc<dyn Checkpointer>,
        id: impl Into<String>,
    ) -> Thread<'_, T, O, C, S> {
        Thread {
            agent: self,
            checkpointer: Some(checkpointer),
            id: id.into(),
            lease: None,
            lease_ttl: Duration::ZERO,
            cache: None,
            durability: self.parts.durability,
        }
    }

    /// The threads of this agent's checkpointer, most recently updated first, at most
    /// `limit`.
    pub async fn threads(&self, limit: usize) -> Result<Vec<ThreadInfo>, ThreadError> {
        let checkpointer = self
            .parts
            .checkpointer
            .as_ref()
            .ok_or(ThreadError::NoCheckpointer)?;
        Ok(checkpointer.threads(limit).await?)
    }
}

impl<T, O, C, S> Agent<T, O, C, S>
where
    T: Toolset<C, S>,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    /// Whether `call` runs again when it was in flight at a crash: a call of an idempotent
    /// tool, a call with invalid arguments or of an unknown tool (both have no effect).
    pub(crate) fn reruns_after_crash(&self, call: &ToolCall) -> bool {
        let parts = &self.parts;
        match parts.toolset.parse(call) {
            Some(Ok(parsed)) => parts.toolset.is_idempotent(&parsed),
            Some(Err(_)) => true,
            None => parts
                .dyn_tools
                .iter()
                .find(|t| t.definition().name == call.name)
                .is_none_or(|t| DynTool::is_idempotent(&**t)),
        }
    }
}

/// How a run in a thread starts.
enum How<S> {
    Fresh { input: Input, new_state: fn() -> S },
    Resume(Vec<(String, Decision)>),
    Recover,
}

fn fail(kind: impl Into<ThreadError>) -> RunError {
    RunError::new(RunErrorKind::Thread(kind.into()), PartialRun::default())
}

impl<'a, T, O, C, S> Thread<'a, T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    /// The thread's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Writes under `lease` (from
    /// [`Checkpointer::acquire_lease`](crate::persist::Checkpointer::acquire_lease)): a save
    /// after another worker took the thread over fails with
    /// [`PersistError::LeaseLost`](crate::persist::PersistError::LeaseLost) and the run stops.
    /// Without a lease, a run on a thread another worker holds an unexpired lease on stops at
    /// its first save with [`PersistError::Leased`](crate::persist::PersistError::Leased).
    ///
    /// While a run goes on, a heartbeat renews the lease every third of its TTL — the time
    /// the lease had left when given here, or [`Thread::lease_ttl`] — so a run longer than
    /// the TTL keeps the thread. A run whose lease is taken over, or runs out before a
    /// renewal succeeds, stops at once and writes nothing more:
    /// [`PersistError::LeaseLost`](crate::persist::PersistError::LeaseLost) or
    /// [`PersistError::LeaseExpired`](crate::persist::PersistError::LeaseExpired). The
    /// lease is not released when the run ends (release it, or run again under it).
    pub fn with_lease(mut self, lease: Lease) -> Self {
        self.lease_ttl = Keeper::ttl_left(&lease);
        self.lease = Some(lease);
        self
    }

    /// The TTL the heartbeat renews the lease for (see [`Thread::with_lease`]); call it after
    /// `with_lease`.
    pub fn lease_ttl(mut self, ttl: Duration) -> Self {
        self.lease_ttl = ttl;
        self
    }

    /// When this run writes its checkpoints (the agent's
    /// [`AgentBuilder::durability`](super::AgentBuilder::durability) by default): at every
    /// step, or once when it ends. See [`Durability`] for what each keeps after a crash.
    pub fn durability(mut self, durability: Durability) -> Self {
        self.durability = durability;
        self
    }

    fn checkpointer(&self) -> Result<&Arc<dyn Checkpointer>, ThreadError> {
        self.checkpointer
            .as_ref()
            .ok_or(ThreadError::NoCheckpointer)
    }

    /// Runs the agent on the thread: its history and state (`S::default()` for a new
    /// thread), then `input`. The run is checkpointed as it goes; a pause for review is an
    /// error here (use [`Thread::run_or_pause`]). Fails with [`ThreadError::Status`] when the
    /// thread's last run did not end (see [`Thread::recover`] and [`Thread::resume`]).
    pub fn run(
        &self,
        input: impl IntoInput,
        context: impl IntoContext<C>,
    ) -> BoxFuture<'_, RunOutcome<O::Output, S>>
    where
        S: Default + ThreadState,
    {
        // Not an `async fn` (here and below): the returned future's type does not name the
        // arguments, so a wrong one is one error at the call, not one more at each `.await`.
        let how = How::Fresh {
            input: input.into(),
            new_state: S::default,
        };
        self.go(how, context.into_context(), None)
            .map(|outcome| outcome.and_then(finished))
            .boxed()
    }

    /// [`Thread::run`], returning a pause for review as [`Outcome::Paused`]; the pause is
    /// saved in the thread too (see [`Thread::resume`]).
    pub fn run_or_pause(
        &self,
        input: impl IntoInput,
        context: impl IntoContext<C>,
    ) -> OutcomeFuture<'_, O::Output, S>
    where
        S: Default + ThreadState,
    {
        let how = How::Fresh {
            input: input.into(),
            new_state: S::default,
        };
        OutcomeFuture::boxed(self.go(how, context.into_context(), None).boxed())
    }

    /// [`Thread::run`], streaming events like [`Agent::stream`].
    pub fn stream(
        &self,
        input: impl IntoInput,
        context: impl IntoContext<C>,
    ) -> AgentStream<'_, O::Output, S, T::Event>
    where
        S: Default + ThreadState,
    {
        let how = How::Fresh {
            input: input.into(),
            new_state: S::default,
        };
        self.streamed(how, context.into_context())
    }

    /// Goes on from the pause saved in the thread, with one decision per reviewed call (see
    /// [`Agent::resume`]), in this process or another, any time later. A pause of the thread
    /// that was resumed already (by [`Agent::resume`] of [`Thread::pending`], say) is refused
    /// with [`ResumeError::AlreadyResumed`](crate::agent::ResumeError::AlreadyResumed).
    pub fn resume(
        &self,
        decisions: impl IntoIterator<Item: IntoDecision>,
        context: impl IntoContext<C>,
    ) -> OutcomeFuture<'_, O::Output, S>
    where
        S: ThreadState,
    {
        let how = How::Resume(collect_decisions(decisions));
        OutcomeFuture::boxed(self.go(how, context.into_context(), None).boxed())
    }

    /// [`Thread::resume`], streaming events.
    pub fn resume_stream(
        &self,
        decisions: impl IntoIterator<Item: IntoDecision>,
        context: impl IntoContext<C>,
    ) -> AgentStream<'_, O::Output, S, T::Event>
    where
        S: ThreadState,
    {
        let how = How::Resume(collect_decisions(decisions));
        self.streamed(how, context.into_context())
    }

    /// Goes on with a run that never ended (its process was killed, or its future dropped),
    /// from the thread's newest checkpoint, under the contract in the
    /// [`Thread`](Thread#crashes-at-most-once-and-at-least-once). Fails with
    /// [`ThreadError::Status`] when no run is going on.
    pub fn recover(&self, context: impl IntoContext<C>) -> OutcomeFuture<'_, O::Output, S>
    where
        S: ThreadState,
    {
        OutcomeFuture::boxed(self.go(How::Recover, context.into_context(), None).boxed())
    }

    /// [`Thread::recover`], streaming events.
    pub fn recover_stream(
        &self,
        context: impl IntoContext<C>,
    ) -> AgentStream<'_, O::Output, S, T::Event>
    where
        S: ThreadState,
    {
        self.streamed(How::Recover, context.into_context())
    }

    fn streamed(&self, how: How<S>, context: Arc<C>) -> AgentStream<'_, O::Output, S, T::Event>
    where
        S: ThreadState,
    {
        let (sinks, events) = Sinks::new();
        let run = self.go(how, context, Some(sinks)).boxed();
        AgentStream::new(run, events)
    }

    fn decode<V: DeserializeOwned>(&self, value: serde_json::Value) -> Result<V, ThreadError>
    where
        S: ThreadState,
    {
        serde_json::from_value(value)
            .map_err(|e| ThreadError::state::<V>(&self.id, "does not deserialize", e))
    }

    /// The saved pause of a paused checkpoint, its messages put back (without the system
    /// message), and the checkpoint's run info.
    ///
    /// Also the number of messages the thread holds (more than the pause's for a pause at
    /// tool questions: the thread holds the paused answer too).
    #[allow(clippy::type_complexity)]
    fn pause_of(
        &self,
        checkpoint: Checkpoint,
    ) -> Result<Option<(Pause<S>, RunInfo, usize)>, ThreadError>
    where
        S: ThreadState,
    {
        let info = RunInfo::read(&self.id, &checkpoint.counters)?;
        let (RunStatus::Paused, Some(pending)) = (info.status, checkpoint.pending) else {
            return Ok(None);
        };
        let mut pause: Pause<S> = self.decode(pending)?;
        let mut messages = checkpoint.messages;
        let held = messages.len();
        if let Some(at) = info.paused_at {
            messages.truncate(at);
        }
        // A compacted thread: the pause goes on from its view.
        if let Some(view) = &info.view {
            messages = view.apply(messages);
        }
        pause.snapshot.messages = messages;
        Ok(Some((pause, info, held)))
    }

    /// Whether `call` runs again when it was in flight at a crash.
    fn reruns(&self, call: &ToolCall) -> bool
    where
        S: ThreadState,
    {
        self.agent.reruns_after_crash(call)
    }

    fn journal(
        &self,
        checkpointer: &Arc<dyn Checkpointer>,
        after: Option<u64>,
        saved: usize,
        run_start: usize,
        state: serde_json::Value,
    ) -> ThreadJournal
    where
        S: ThreadState,
    {
        ThreadJournal {
            checkpointer: Arc::clone(checkpointer),
            thread_id: self.id.clone(),
            lease: self.lease.clone(),
            after,
            saved,
            run_start,
            skip_start: false,
            last_state: state,
            answer: None,
            behind_ok: false,
            keeper: None,
            last: None,
            view: None,
            durability: self.durability,
        }
    }

    /// The system message a resumed transcript starts with, rendered for `state`.
    fn with_system(&self, context: &C, state: &S, messages: Vec<Message>) -> Vec<Message>
    where
        S: ThreadState,
    {
        match self.agent.parts.instructions.render(context, state) {
            Some(text) => std::iter::once(Message::system(text))
                .chain(messages)
                .collect(),
            None => messages,
        }
    }
}

fn status_of(info: &RunInfo) -> ThreadStatus {
    match info.status {
        RunStatus::Idle => ThreadStatus::Idle,
        RunStatus::Running => ThreadStatus::Running,
        RunStatus::Paused => ThreadStatus::Paused,
    }
}
