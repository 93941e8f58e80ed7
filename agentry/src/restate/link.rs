//! The link between the agent loop and the Restate handler that owns the invocation's
//! context: the journaling middleware asks for a step over a channel, found through a
//! task-local, and the handler runs it as a `ctx.run` (see [`super::steps`]).
//!
//! Everything that crosses the link is owned (`'static`): the step's work stays in the
//! middleware's future, which is told whether to do it (the step is not in the journal) or
//! handed the journaled value (it is).

use futures::channel::{mpsc, oneshot};
use futures::future::{Either, select};
use serde_json::Value;

use crate::message::ToolCall;

/// A step's journaled value, or the message of its final failure.
pub(crate) type StepValue = Result<Value, String>;

/// What a step does.
pub(crate) enum StepKind {
    /// One model request.
    Model,
    /// One tool call.
    Tool(ToolCall),
}

/// One step the agent loop asks the handler for.
pub(crate) struct StepRequest {
    pub(crate) kind: StepKind,
    /// Sent when the step runs in this attempt: where its result goes.
    pub(crate) execute: oneshot::Sender<oneshot::Sender<StepValue>>,
    /// The journaled value, new or replayed.
    pub(crate) done: oneshot::Sender<StepValue>,
}

/// The sending end the middleware finds in the task-local.
#[derive(Clone)]
pub(crate) struct StepLink {
    tx: mpsc::UnboundedSender<StepRequest>,
}

tokio::task_local! {
    static LINK: StepLink;
}

/// How a step goes.
pub(crate) enum Step {
    /// Not in the journal: do the work, send its result, then wait for `done` (the engine
    /// stored it).
    Run {
        result: oneshot::Sender<StepValue>,
        done: oneshot::Receiver<StepValue>,
    },
    /// In the journal: its value, the work is not done again.
    Replayed(StepValue),
}

/// Why a step could not be asked for: the handler is gone (its invocation ended).
pub(crate) const GONE: &str = "the Restate invocation running this step ended";

impl StepLink {
    /// A link and the handler's receiving end.
    pub(crate) fn new() -> (Self, mpsc::UnboundedReceiver<StepRequest>) {
        let (tx, rx) = mpsc::unbounded();
        (StepLink { tx }, rx)
    }

    /// The link of the Restate invocation this future runs in, if any.
    pub(crate) fn current() -> Option<Self> {
        LINK.try_with(Clone::clone).ok()
    }

    /// Runs `future` with this link as the current one.
    pub(crate) async fn scope<F: Future>(self, future: F) -> F::Output {
        LINK.scope(self, future).await
    }

    /// Asks the handler for a step.
    pub(crate) async fn step(&self, kind: StepKind) -> Step {
        let (execute, execute_rx) = oneshot::channel();
        let (done, done_rx) = oneshot::channel();
        let request = StepRequest {
            kind,
            execute,
            done,
        };
        if self.tx.unbounded_send(request).is_err() {
            return Step::Replayed(Err(GONE.to_string()));
        }
        match select(execute_rx, done_rx).await {
            Either::Left((Ok(result), done)) => Step::Run { result, done },
            // The closure was dropped without running: the value is the journal's.
            Either::Left((Err(_), done)) => Step::Replayed(done.await.unwrap_or_else(gone)),
            Either::Right((value, _)) => Step::Replayed(value.unwrap_or_else(gone)),
        }
    }
}

fn gone(_: oneshot::Canceled) -> StepValue {
    Err(GONE.to_string())
}
