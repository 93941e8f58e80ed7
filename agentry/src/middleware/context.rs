//! [`RunCx`]: what a model-side hook sees of the run — its typed context and state, and its
//! counters.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::run::Step;
use crate::tool::runtime::{StateUpdate, lock};
use crate::usage::Usage;

/// The run as a hook sees it: the typed context `&C`, a snapshot of the state `&S`, and
/// the run's counters.
///
/// State is changed the way tools change it: [`RunCx::update`] queues a closure, and the
/// runtime applies the queue in order once the hook returns (before the next hook runs), so
/// a hook never races a tool for the state.
pub struct RunCx<'a, C, S> {
    pub(crate) context: &'a C,
    pub(crate) state: &'a S,
    pub(crate) updates: &'a Mutex<Vec<StateUpdate<S>>>,
    pub(crate) turn: u32,
    pub(crate) usage: Usage,
    pub(crate) steps: &'a [Step],
    pub(crate) thread_model_calls: u32,
    /// Set by a default hook: the chain skips that hook of that middleware from then on.
    pub(crate) default: &'a AtomicBool,
}

impl<'a, C, S> RunCx<'a, C, S> {
    /// Called by a default hook: the hook does nothing, later calls may skip it.
    pub(crate) fn hook_is_default(&self) {
        self.default.store(true, Ordering::Relaxed);
    }

    /// The run's context.
    pub fn context(&self) -> &'a C {
        self.context
    }

    /// The state as it is now (updates queued by this hook are not visible yet).
    pub fn state(&self) -> &'a S {
        self.state
    }

    /// Queues an update of the state, applied after this hook returns, in the order queued.
    pub fn update(&self, f: impl FnOnce(&mut S) + Send + 'static) {
        lock(self.updates).push(Box::new(f));
    }

    /// Queues replacing the state with `value`.
    pub fn set(&self, value: S)
    where
        S: Send + 'static,
    {
        self.update(move |s| *s = value);
    }

    /// The number of the current (or coming) model request of this run, 1-based; 0 in
    /// `before_agent` and `after_agent`.
    pub fn turn(&self) -> u32 {
        self.turn
    }

    /// Tokens and requests spent by this run so far.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The tool calls this run made so far, with their results.
    pub fn steps(&self) -> &'a [Step] {
        self.steps
    }

    /// Calls of tool `name` this run made so far.
    pub fn tool_calls_of(&self, name: &str) -> usize {
        self.steps.iter().filter(|s| s.call.name == name).count()
    }

    /// Model answers in the whole thread: those in the history the run started from plus
    /// those of this run.
    pub fn thread_model_calls(&self) -> u32 {
        self.thread_model_calls
    }
}

impl<C, S> std::fmt::Debug for RunCx<'_, C, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunCx")
            .field("context", &std::any::type_name::<C>())
            .field("state", &std::any::type_name::<S>())
            .field("turn", &self.turn)
            .field("usage", &self.usage)
            .field("steps", &self.steps.len())
            .finish()
    }
}
