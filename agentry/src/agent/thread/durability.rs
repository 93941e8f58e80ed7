//! When a run in a thread writes its checkpoints: at every step, or once when it ends.

/// When a run in a [`Thread`](super::Thread) writes its checkpoints
/// ([`AgentBuilder::durability`](crate::agent::AgentBuilder::durability) for an agent's
/// threads, [`Thread::durability`](super::Thread::durability) for one run).
///
/// The two modes trade what survives a killed process for the writes a run makes:
///
/// | | [`Step`](Durability::Step) (default) | [`Exit`](Durability::Exit) |
/// |---|---|---|
/// | checkpoints of a run with *n* tool-calling answers | 2 + 2*n* | 1 (2 + *n* with middleware that runs before each model request, see below) |
/// | the process is killed mid-run | the thread says [`Running`](crate::agent::ThreadStatus::Running); [`Thread::recover`](super::Thread::recover) finishes the run, no saved tool result produced twice | the thread stays as it was before the run: its input and what it did are not saved (a tool's effects outside the thread remain), and there is nothing to recover or cancel |
/// | another run on the same thread meanwhile | refused at its first save, before its model call | found when the later run saves, after its tools ran: it fails with [`PersistError::Conflict`](crate::persist::PersistError::Conflict) and saves nothing |
///
/// Both save how a run ends — finished, failed (the transcript up to the failure) or paused
/// for review (the pause, which any process resumes) — and a compaction's view when a
/// summarizing middleware compacts the thread. Pick `Exit` for a chat whose turns are cheap
/// to ask again and whose tools have no effects a retry must not repeat: a SQLite thread run
/// over loopback HTTP, continuing a conversation, costs 1.6× the CPU of the same run without
/// a checkpointer with it, 2.3–2.4× at every step (`cargo bench --bench thread_run`, the
/// guide's performance chapter).
///
/// A middleware's `before_model` hook may compact the transcript
/// ([`Summarization`](crate::middleware::Summarization)), and a thread's history keeps every
/// message a compaction summarizes. So with middleware that may run `before_model` (a hook
/// left at its default is known as such after the agent's first request), an `Exit` run also
/// saves before each model request (its input, then each tool batch's results): a
/// compaction never summarizes messages the thread does not hold, and a run killed after one
/// of those saves leaves the thread `Running` for `recover`, which asks the model again for
/// the answer that was not saved.
///
/// LangGraph's `durability="exit"` and `"sync"` are the same two choices.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use agentry::agent::{AgentBuilder, Durability, NoTools};
/// use agentry::persist::InMemoryCheckpointer;
/// use agentry::testing::{ScriptedModel, Turn};
///
/// let model = ScriptedModel::new([Turn::text("Hello, Ada.")]);
/// let agent = AgentBuilder::<_, _, (), ()>::new(model, NoTools)
///     .checkpointer(InMemoryCheckpointer::default())
///     .durability(Durability::Exit)
///     .build();
/// agent.thread("user-7").run("I am Ada.", ()).await.unwrap();
/// // One checkpoint for the whole run: its input and answer together.
/// let history = agent.thread("user-7").history(10).await.unwrap();
/// assert_eq!(history.len(), 1);
/// assert_eq!(history[0].message_count, 2);
/// # });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Durability {
    /// A checkpoint when the input is in, after each model answer that calls tools, after
    /// that answer's tool batch, and when the run ends: a run killed anywhere is recovered
    /// without producing a saved tool result twice (see
    /// [`Thread`](super::Thread#crashes-at-most-once-and-at-least-once)).
    #[default]
    Step,
    /// One checkpoint, when the run ends (finished, failed or paused), plus one for each
    /// compaction of the thread (and one before each model request with middleware that may
    /// compact, see above). A run killed before it ends is not saved.
    Exit,
}

impl Durability {
    /// Whether a run in this mode saves at a step of the loop that is not its end.
    pub(crate) fn saves_steps(self) -> bool {
        self == Durability::Step
    }
}
