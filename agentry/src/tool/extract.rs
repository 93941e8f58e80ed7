//! The SDK's injectable parameter types.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use super::runtime::{Inject, InjectError, ToolRuntime, UpdateQueue, lock};
use crate::store::Store;

/// The run's context (the user, the tenant, a request id...), shared read-only by every tool.
///
/// A tool that takes `Context<User>` can only be used by an agent declared with
/// `context = User`; anything else is a compile error.
pub struct Context<C>(Arc<C>);

impl<C> Context<C> {
    /// Wraps a context value (useful when calling a tool function directly in a test).
    pub fn new(value: C) -> Self {
        Context(Arc::new(value))
    }

    /// The shared context.
    pub fn shared(&self) -> &Arc<C> {
        &self.0
    }
}

impl<C> Clone for Context<C> {
    fn clone(&self) -> Self {
        Context(Arc::clone(&self.0))
    }
}

impl<C> Deref for Context<C> {
    type Target = C;
    fn deref(&self) -> &C {
        &self.0
    }
}

impl<C: fmt::Debug> fmt::Debug for Context<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Context").field(&self.0).finish()
    }
}

impl<C, S> Inject<C, S> for Context<C> {
    fn inject(rt: &ToolRuntime<C, S>) -> Result<Self, InjectError> {
        Ok(Context(Arc::clone(rt.shared_context())))
    }
}

/// The run's typed state: a snapshot to read, and updates to queue.
///
/// Updates do not change the snapshot that concurrently running tools see. The runtime applies
/// them after the batch of calls, call by call in the order the model emitted them, so
/// parallel tool calls update state deterministically.
///
/// ```
/// use agentry::{State, ToolRuntime};
///
/// let rt = ToolRuntime::new().with_state(vec![1, 2]);
/// let state: State<Vec<i32>> = agentry::Inject::inject(&rt).unwrap();
/// assert_eq!(state.len(), 2);
/// state.update(|items| items.push(3));
/// assert_eq!(state.len(), 2, "the snapshot does not change");
///
/// let mut next = rt.state().clone();
/// rt.apply_state_updates(&mut next);
/// assert_eq!(next, vec![1, 2, 3]);
/// ```
pub struct State<S> {
    snapshot: Arc<S>,
    updates: UpdateQueue<S>,
}

impl<S> State<S> {
    /// Queues an update, applied after this batch of tool calls.
    pub fn update(&self, f: impl FnOnce(&mut S) + Send + 'static) {
        lock(&self.updates).push(Box::new(f));
    }

    /// Queues replacing the state with `value`.
    pub fn set(&self, value: S)
    where
        S: Send + 'static,
    {
        self.update(move |s| *s = value);
    }
}

impl<S> Deref for State<S> {
    type Target = S;
    fn deref(&self) -> &S {
        &self.snapshot
    }
}

impl<S: fmt::Debug> fmt::Debug for State<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&self.snapshot).finish()
    }
}

impl<C, S> Inject<C, S> for State<S> {
    fn inject(rt: &ToolRuntime<C, S>) -> Result<Self, InjectError> {
        let (snapshot, updates) = rt.shared_state();
        Ok(State {
            snapshot: Arc::clone(snapshot),
            updates: Arc::clone(updates),
        })
    }
}

/// The id the provider gave the tool call being run.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct ToolCallId(Arc<str>);

impl ToolCallId {
    /// An id from a string.
    pub fn new(id: impl Into<Arc<str>>) -> Self {
        ToolCallId(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for ToolCallId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ToolCallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for ToolCallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<C, S> Inject<C, S> for ToolCallId {
    fn inject(rt: &ToolRuntime<C, S>) -> Result<Self, InjectError> {
        Ok(rt.call_id_value().clone())
    }
}

impl<C, S> Inject<C, S> for Store {
    fn inject(rt: &ToolRuntime<C, S>) -> Result<Self, InjectError> {
        rt.store().cloned().ok_or_else(|| {
            InjectError::new::<Store>("this run has no store; configure one on the agent")
        })
    }
}
