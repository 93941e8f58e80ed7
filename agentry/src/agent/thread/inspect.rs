//! Reading a thread: where it stands, its messages, typed state, pause and checkpoints;
//! deleting it; forking it from an earlier checkpoint (time travel).

use super::journal::RunInfo;
use super::{Thread, ThreadError, ThreadState, ThreadStatus, status_of};
use crate::agent::toolset::Toolset;
use crate::message::Message;
use crate::output::OutputSpec;
use crate::persist::{Checkpoint, CheckpointMeta, CheckpointRef};
use crate::run::Pause;

/// A thread as its newest checkpoint holds it: [`Thread::snapshot`].
#[derive(Debug)]
#[non_exhaustive]
pub struct ThreadSnapshot<S> {
    /// Where the thread stands.
    pub status: ThreadStatus,
    /// Its messages, oldest first (as [`Thread::messages`]).
    pub messages: Vec<Message>,
    /// Its typed state; `None` for a new thread.
    pub state: Option<S>,
    /// The pause waiting for review, sealed (as [`Thread::pending`]).
    pub pending: Option<Pause<S>>,
    /// Whether its last run was cancelled (as [`Thread::was_cancelled`]).
    pub cancelled: bool,
}

impl<'a, T, O, C, S> Thread<'a, T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    /// Where the thread stands.
    pub async fn status(&self) -> Result<ThreadStatus, ThreadError>
    where
        S: ThreadState,
    {
        let latest = self.checkpointer()?.latest(&self.id).await?;
        match latest {
            None => Ok(ThreadStatus::New),
            Some(c) => Ok(status_of(&RunInfo::read(&self.id, &c.counters)?)),
        }
    }

    /// The thread's messages (without the agent's instructions), oldest first; empty for a new
    /// thread. The full history: a compacted thread keeps every original message here (what
    /// the model sees is [`Thread::view`]).
    pub async fn messages(&self) -> Result<Vec<Message>, ThreadError>
    where
        S: ThreadState,
    {
        let latest = self.checkpointer()?.latest(&self.id).await?;
        Ok(latest.map(|c| c.messages).unwrap_or_default())
    }

    /// What the model sees of the thread (without the agent's instructions): its messages,
    /// or, once a summarizing middleware compacted it, the summary then the messages kept.
    /// [`Thread::messages`] is the full history, every original message kept for audit.
    pub async fn view(&self) -> Result<Vec<Message>, ThreadError>
    where
        S: ThreadState,
    {
        let Some(latest) = self.checkpointer()?.latest(&self.id).await? else {
            return Ok(Vec::new());
        };
        let info = RunInfo::read(&self.id, &latest.counters)?;
        Ok(match info.view {
            Some(view) => view.apply(latest.messages),
            None => latest.messages,
        })
    }

    /// The thread's typed state; `None` for a new thread.
    pub async fn state(&self) -> Result<Option<S>, ThreadError>
    where
        S: ThreadState,
    {
        let latest = self.checkpointer()?.latest(&self.id).await?;
        latest.map(|c| self.decode(c.state)).transpose()
    }

    /// The typed state at checkpoint `step`; `None` when there is no such checkpoint.
    pub async fn state_at(&self, step: u64) -> Result<Option<S>, ThreadError>
    where
        S: ThreadState,
    {
        let checkpoint = self.checkpointer()?.get(&self.id, step).await?;
        checkpoint.map(|c| self.decode(c.state)).transpose()
    }

    /// The pause saved in the thread, with the thread's messages; `None` when not paused.
    pub async fn pending(&self) -> Result<Option<Pause<S>>, ThreadError>
    where
        S: ThreadState,
    {
        let Some(latest) = self.checkpointer()?.latest(&self.id).await? else {
            return Ok(None);
        };
        self.sealed_pause(latest)
    }

    /// The pause of checkpoint `latest`, sealed: read from the thread's storage, it leaves
    /// the process from here (its messages are the thread's).
    fn sealed_pause(&self, latest: Checkpoint) -> Result<Option<Pause<S>>, ThreadError>
    where
        S: ThreadState,
    {
        let Some((mut pause, ..)) = self.pause_of(latest)? else {
            return Ok(None);
        };
        if let Some(sealer) = &self.agent.parts.sealer {
            sealer
                .seal(&mut pause)
                .map_err(|e| ThreadError::state::<S>(&self.id, "does not serialize", e))?;
        }
        Ok(Some(pause))
    }

    /// Where the thread stands, its messages, typed state, pause and cancel flag, from one
    /// read of its newest checkpoint (the separate getters read it once each, and a run
    /// saving between them would mix two checkpoints).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use agentry::agent::{AgentBuilder, NoTools, ThreadStatus};
    /// use agentry::persist::InMemoryCheckpointer;
    /// use agentry::testing::{ScriptedModel, Turn};
    ///
    /// let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("Hi!")]), NoTools)
    ///     .checkpointer(InMemoryCheckpointer::default())
    ///     .build();
    /// let thread = agent.thread("t");
    /// assert_eq!(thread.snapshot().await.unwrap().status, ThreadStatus::New);
    /// thread.run("Hello", ()).await.unwrap();
    /// let snapshot = thread.snapshot().await.unwrap();
    /// assert_eq!((snapshot.status, snapshot.messages.len()), (ThreadStatus::Idle, 2));
    /// assert!(snapshot.pending.is_none() && !snapshot.cancelled);
    /// # });
    /// ```
    pub async fn snapshot(&self) -> Result<ThreadSnapshot<S>, ThreadError>
    where
        S: ThreadState,
    {
        let Some(latest) = self.checkpointer()?.latest(&self.id).await? else {
            return Ok(ThreadSnapshot {
                status: ThreadStatus::New,
                messages: Vec::new(),
                state: None,
                pending: None,
                cancelled: false,
            });
        };
        let info = RunInfo::read(&self.id, &latest.counters)?;
        let (messages, state) = (latest.messages.clone(), latest.state.clone());
        Ok(ThreadSnapshot {
            status: status_of(&info),
            messages,
            state: Some(self.decode(state)?),
            pending: self.sealed_pause(latest)?,
            cancelled: info.cancelled,
        })
    }

    /// Checkpoint `step`, with its messages, untyped.
    pub async fn checkpoint(&self, step: u64) -> Result<Option<Checkpoint>, ThreadError>
    where
        S: ThreadState,
    {
        Ok(self.checkpointer()?.get(&self.id, step).await?)
    }

    /// The thread's checkpoints, newest first, at most `limit`.
    pub async fn history(&self, limit: usize) -> Result<Vec<CheckpointMeta>, ThreadError>
    where
        S: ThreadState,
    {
        Ok(self.checkpointer()?.history(&self.id, limit).await?)
    }

    /// Deletes the thread with its messages and checkpoints; whether it existed.
    pub async fn delete(&self) -> Result<bool, ThreadError>
    where
        S: ThreadState,
    {
        if let Some(cache) = self.cache {
            cache.forget(&self.id);
        }
        Ok(self.checkpointer()?.delete_thread(&self.id).await?)
    }

    /// Time travel: a new thread `new_id` starting at this thread's checkpoint `step` (its
    /// messages, state and, when the checkpoint was taken mid-run, the run to
    /// [`recover`](Thread::recover)); this thread is unchanged.
    pub fn fork(
        &self,
        step: u64,
        new_id: impl Into<String>,
    ) -> futures::future::BoxFuture<'_, Result<Thread<'a, T, O, C, S>, ThreadError>>
    where
        S: ThreadState,
    {
        // Not an `async fn`: the returned future's type does not name `new_id`, so an id of
        // the wrong type is one error at the call, not one more at each `.await`.
        Box::pin(self.fork_to(step, new_id.into()))
    }

    async fn fork_to(
        &self,
        step: u64,
        new_id: String,
    ) -> Result<Thread<'a, T, O, C, S>, ThreadError>
    where
        S: ThreadState,
    {
        let from = CheckpointRef::new(self.id.clone(), step);
        self.checkpointer()?.fork(&from, &new_id).await?;
        Ok(Thread {
            agent: self.agent,
            checkpointer: self.checkpointer.clone(),
            id: new_id,
            lease: None,
            lease_ttl: std::time::Duration::ZERO,
            cache: self.cache,
            durability: self.durability,
        })
    }
}
