//! The runtime value a tool call runs with, and the trait that injects parameters from it.

use std::any::Any;
use std::sync::{Arc, Mutex, OnceLock};

use super::extract::ToolCallId;
use super::interrupt::AskSlot;
use super::writer::{CustomEvent, RawWriter};
use crate::store::Store;

/// Where a call's runtime keeps its run's scope (a `run::RunScope`, named only by the room
/// that defines it).
pub(crate) type ScopeSlot = Arc<dyn Any + Send + Sync>;

/// A state update queued by a tool, applied after the tool's batch in call order.
pub(crate) type StateUpdate<S> = Box<dyn FnOnce(&mut S) + Send>;

/// The updates one call queued, shared between its runtime and its `State` extractor.
pub(crate) type UpdateQueue<S> = Arc<Mutex<Vec<StateUpdate<S>>>>;

/// A call's update queue, made when a `State` extractor first asks for it: most calls never
/// update state, and their runtimes allocate no queue.
type LazyQueue<S> = OnceLock<UpdateQueue<S>>;

/// Everything the runtime can inject into one tool call: the call id, the run's context and
/// state, the store and the stream writer.
///
/// The agent runtime builds one per call. Outside an agent — in a unit test, say — build it
/// by hand:
///
/// ```
/// use agentry::ToolRuntime;
///
/// struct User { id: u64 }
/// let rt = ToolRuntime::new()
///     .with_call_id("call_1")
///     .with_context(User { id: 7 })
///     .with_state(vec!["paris".to_string()]);
/// assert_eq!(rt.context().id, 7);
/// assert_eq!(rt.call_id(), "call_1");
/// ```
pub struct ToolRuntime<C = (), S = ()> {
    call_id: ToolCallId,
    context: Arc<C>,
    state: Arc<S>,
    updates: LazyQueue<S>,
    store: Option<Store>,
    writer: RawWriter,
    /// What a sub-agent run from this call inherits from the parent run (its model, budget,
    /// usage and event sinks); `None` outside an agent run unless set by hand. Opaque here:
    /// the scope is a value of the `run` room, above this one, which puts it in and reads it
    /// back (`run/scope.rs`).
    scope: Option<ScopeSlot>,
    /// Answers to the asks of calls re-run after a pause, by call id; `None` on most runs.
    answers: Option<Arc<AnswerBook>>,
    /// This call's asks, made when an `Interrupt` parameter is injected.
    asks: OnceLock<Arc<AskSlot>>,
    /// Answers for the run's first asking call (a re-run sub-agent's).
    forwarded: Option<Forwarded>,
}

/// The answers supplied to re-run calls, by call id.
pub(crate) type AnswerBook = Vec<(String, Vec<serde_json::Value>)>;

/// Answers for the first call of a run that asks, whatever its id: a sub-agent's run re-run
/// with the answers its parent was resumed with. Taken once.
pub(crate) type Forwarded = Arc<Mutex<Option<Vec<serde_json::Value>>>>;

impl ToolRuntime<(), ()> {
    /// A runtime with unit context and state, an empty call id, no store and a stream writer
    /// that collects nothing.
    pub fn new() -> Self {
        ToolRuntime::from_parts(Arc::new(()), Arc::new(()))
    }
}

impl Default for ToolRuntime<(), ()> {
    fn default() -> Self {
        ToolRuntime::new()
    }
}

impl<C, S> ToolRuntime<C, S> {
    /// A runtime over shared context and a state snapshot.
    pub fn from_parts(context: Arc<C>, state: Arc<S>) -> Self {
        ToolRuntime {
            call_id: ToolCallId::default(),
            context,
            state,
            updates: OnceLock::new(),
            store: None,
            writer: RawWriter::disconnected(),
            scope: None,
            answers: None,
            asks: OnceLock::new(),
            forwarded: None,
        }
    }

    /// Replaces the context.
    pub fn with_context<C2>(self, context: C2) -> ToolRuntime<C2, S> {
        self.with_shared_context(Arc::new(context))
    }

    /// Replaces the context with a shared one.
    pub fn with_shared_context<C2>(self, context: Arc<C2>) -> ToolRuntime<C2, S> {
        ToolRuntime {
            call_id: self.call_id,
            context,
            state: self.state,
            updates: self.updates,
            store: self.store,
            writer: self.writer,
            scope: self.scope,
            answers: self.answers,
            asks: self.asks,
            forwarded: self.forwarded,
        }
    }

    /// Replaces the state snapshot (dropping updates queued against the old one).
    pub fn with_state<S2>(self, state: S2) -> ToolRuntime<C, S2> {
        self.with_shared_state(Arc::new(state))
    }

    /// Replaces the state snapshot with a shared one.
    pub fn with_shared_state<S2>(self, state: Arc<S2>) -> ToolRuntime<C, S2> {
        ToolRuntime {
            call_id: self.call_id,
            context: self.context,
            state,
            updates: OnceLock::new(),
            store: self.store,
            writer: self.writer,
            scope: self.scope,
            answers: self.answers,
            asks: self.asks,
            forwarded: self.forwarded,
        }
    }

    /// Sets the id of the call being run.
    pub fn with_call_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.call_id = ToolCallId::new(id);
        self
    }

    /// Supplies answers to this call's [`Interrupt`](crate::Interrupt) asks, in order (the
    /// agent does this when a paused run is resumed; by hand, to test a tool that asks).
    pub fn with_answers(mut self, answers: impl IntoIterator<Item = serde_json::Value>) -> Self {
        let mut book: AnswerBook = self.answers.as_deref().cloned().unwrap_or_default();
        book.retain(|(id, _)| id != self.call_id.as_str());
        book.push((
            self.call_id.as_str().to_string(),
            answers.into_iter().collect(),
        ));
        self.answers = Some(Arc::new(book));
        self
    }

    /// Supplies the answers of re-run calls of a batch (by call id).
    pub(crate) fn with_answer_book(mut self, book: Option<Arc<AnswerBook>>) -> Self {
        self.answers = book;
        self
    }

    /// Answers for the run's first asking call, whatever its id.
    pub(crate) fn with_forwarded(mut self, forwarded: Option<Forwarded>) -> Self {
        self.forwarded = forwarded;
        self
    }

    /// The answers supplied for this call's asks.
    pub(crate) fn given_answers(&self) -> Vec<serde_json::Value> {
        self.answers
            .as_deref()
            .and_then(|book| book.iter().find(|(id, _)| id == self.call_id.as_str()))
            .map(|(_, answers)| answers.clone())
            .unwrap_or_default()
    }

    /// This call's asks (made on first use, with the answers supplied for its call id, or
    /// the run's forwarded answers if no call took them yet).
    pub(crate) fn ask_slot(&self) -> &Arc<AskSlot> {
        self.asks.get_or_init(|| {
            let mut answers = self.given_answers();
            if answers.is_empty()
                && let Some(forwarded) = &self.forwarded
            {
                answers = lock(forwarded).take().unwrap_or_default();
            }
            Arc::new(AskSlot::new(answers))
        })
    }

    /// This call's asks, if a parameter asked for them.
    pub(crate) fn asks(&self) -> &OnceLock<Arc<AskSlot>> {
        &self.asks
    }

    /// Gives tools a store.
    pub fn with_store(mut self, store: Store) -> Self {
        self.store = Some(store);
        self
    }

    /// Sends custom events that tools write to `sender`, as JSON (whatever the type of their
    /// [`StreamWriter`](crate::StreamWriter)).
    pub fn with_event_sender(
        mut self,
        sender: tokio::sync::mpsc::UnboundedSender<CustomEvent>,
    ) -> Self {
        self.writer = RawWriter::channel(self.call_id.clone(), sender);
        self
    }

    /// Sends custom events that tools write to a streamed run's event queue.
    pub(crate) fn with_custom_sink(mut self, sink: crate::tool::CustomSink) -> Self {
        self.writer = RawWriter::to_sink(self.call_id.clone(), sink);
        self
    }

    /// The id of the call being run.
    pub fn call_id(&self) -> &str {
        self.call_id.as_str()
    }

    /// The run's context.
    pub fn context(&self) -> &C {
        &self.context
    }

    /// The state snapshot tools of this call see.
    pub fn state(&self) -> &S {
        &self.state
    }

    /// The store, if one was configured.
    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// A runtime for another call of the same batch: same context, state snapshot, store and
    /// event sink; its own call id and its own queue of state updates.
    pub fn for_call(&self, call_id: impl Into<Arc<str>>) -> Self {
        let call_id = ToolCallId::new(call_id);
        ToolRuntime {
            writer: self.writer.for_call(call_id.clone()),
            call_id,
            context: Arc::clone(&self.context),
            state: Arc::clone(&self.state),
            updates: OnceLock::new(),
            store: self.store.clone(),
            scope: self.scope.clone(),
            answers: self.answers.clone(),
            asks: OnceLock::new(),
            forwarded: self.forwarded.clone(),
        }
    }

    /// Applies the state updates this call queued, in the order they were queued, and
    /// returns how many there were.
    ///
    /// The agent runtime calls this for each call of a batch in the order the model emitted
    /// the calls, so concurrent tools update state deterministically.
    pub fn apply_state_updates(&self, state: &mut S) -> usize {
        self.take_state_updates().apply(state)
    }

    /// Takes the state updates this call queued out of the runtime, so they can be applied
    /// after the runtime (and its shared state snapshot) is dropped.
    pub fn take_state_updates(&self) -> StateUpdates<S> {
        StateUpdates(match self.updates.get() {
            Some(queue) => std::mem::take(&mut *lock(queue)),
            None => Vec::new(),
        })
    }

    pub(crate) fn shared_context(&self) -> &Arc<C> {
        &self.context
    }

    pub(crate) fn shared_state(&self) -> (&Arc<S>, &UpdateQueue<S>) {
        (&self.state, self.updates.get_or_init(Default::default))
    }

    pub(crate) fn call_id_value(&self) -> &ToolCallId {
        &self.call_id
    }

    pub(crate) fn writer(&self) -> &RawWriter {
        &self.writer
    }

    pub(crate) fn with_scope_slot(mut self, scope: ScopeSlot) -> Self {
        self.scope = Some(scope);
        self
    }

    pub(crate) fn scope_slot(&self) -> Option<&ScopeSlot> {
        self.scope.as_ref()
    }
}

impl<C, S> std::fmt::Debug for ToolRuntime<C, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRuntime")
            .field("call_id", &self.call_id.as_str())
            .field("context", &std::any::type_name::<C>())
            .field("state", &std::any::type_name::<S>())
            .field("store", &self.store.is_some())
            .finish()
    }
}

/// State updates queued by one tool call, taken out of its runtime with
/// [`ToolRuntime::take_state_updates`].
pub struct StateUpdates<S>(Vec<StateUpdate<S>>);

impl<S> StateUpdates<S> {
    /// Applies the updates in the order they were queued; returns how many there were.
    pub fn apply(self, state: &mut S) -> usize {
        let n = self.0.len();
        for update in self.0 {
            update(state);
        }
        n
    }

    /// The number of queued updates.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The updates, leaving none here.
    pub(crate) fn take(&mut self) -> StateUpdates<S> {
        StateUpdates(std::mem::take(&mut self.0))
    }

    /// Whether no update was queued.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<S> std::fmt::Debug for StateUpdates<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StateUpdates({})", self.0.len())
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panicking tool cannot leave the queue half-written (pushes are atomic), so a
    // poisoned lock still guards consistent data.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A tool parameter the runtime fills in, instead of the model.
///
/// Implemented by the SDK's extractors ([`Context`](crate::Context), [`State`](crate::State),
/// [`Store`], [`ToolCallId`], [`StreamWriter`](crate::tool::StreamWriter)). Implement it for your own types and mark the
/// parameter `#[inject]` to derive a value from the context or state:
///
/// ```
/// use agentry::{Inject, InjectError, ToolRuntime};
///
/// struct App { db_url: String }
/// struct DbUrl(String);
///
/// impl<S> Inject<App, S> for DbUrl {
///     fn inject(rt: &ToolRuntime<App, S>) -> Result<Self, InjectError> {
///         Ok(DbUrl(rt.context().db_url.clone()))
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be injected into a tool run with context `{C}` and state `{S}`",
    label = "the runtime fills this parameter, but cannot provide `{Self}` here",
    note = "`Context<T>` needs an agent with `context = T`, and `State<T>` one with `state = T`",
    note = "a parameter the model fills takes no attribute: remove `#[inject]` (where written) and give its type `Deserialize + JsonSchema`; to inject a type of your own, implement `agentry::Inject` for it"
)]
pub trait Inject<C, S>: Sized {
    /// Extracts the value for one call.
    fn inject(runtime: &ToolRuntime<C, S>) -> Result<Self, InjectError>;
}

/// A parameter the runtime could not provide.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot inject `{parameter}`: {reason}")]
pub struct InjectError {
    /// The type of the parameter.
    pub parameter: String,
    /// Why it is not available.
    pub reason: String,
}

impl InjectError {
    /// A new error for the parameter type `T`.
    pub fn new<T: ?Sized>(reason: impl Into<String>) -> Self {
        InjectError {
            parameter: std::any::type_name::<T>().to_string(),
            reason: reason.into(),
        }
    }
}
