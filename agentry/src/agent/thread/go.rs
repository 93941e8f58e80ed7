//! One run in a thread: load the latest checkpoint (through the cache when the agent keeps
//! one), start it fresh, resumed or recovered, drive it saving each step, and keep what it
//! saved.

use super::*;
use crate::agent::instructions::Instructions;
use crate::messages::Messages;
use cache::Latest;

impl<T, O, C, S> Thread<'_, T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    pub(super) async fn go(
        &self,
        how: How<S>,
        context: Arc<C>,
        sinks: Option<Sinks<O::Output, S, T::Event>>,
    ) -> Result<Outcome<O::Output, S>, RunError>
    where
        S: ThreadState,
    {
        let checkpointer = self.checkpointer().map_err(fail)?;
        // A fresh run goes through the cache; a resumed or recovered one loads the thread
        // whole (the cache holds idle threads only) and forgets the entry.
        let loaded = match (self.cache, &how) {
            (Some(cache), How::Fresh { .. }) => cache.latest(&**checkpointer, &self.id).await,
            (cache, _) => {
                if let Some(cache) = cache {
                    cache.forget(&self.id);
                }
                let latest = checkpointer.latest(&self.id).await;
                latest.map(|c| c.map(Latest::Loaded))
            }
        }
        .map_err(fail)?;
        let (latest, cached) = match loaded {
            None => (None, None),
            Some(Latest::Loaded(c)) => (Some(c), None),
            Some(Latest::Cached(c, transcript)) => (Some(c), Some(transcript)),
        };
        let info = latest
            .as_ref()
            .map(|c| RunInfo::read(&self.id, &c.counters))
            .transpose()
            .map_err(|e| fail(ThreadError::Persist(e)))?;
        let status = info.as_ref().map_or(ThreadStatus::New, status_of);
        // The thread's compacted view, when a summarizing middleware compacted it.
        let view = info.as_ref().and_then(|i| i.view.clone());
        let (start, mut journal) = match how {
            How::Fresh { input, new_state } => {
                let (history, state, after) = match latest {
                    None => (Messages::new(), new_state(), None),
                    Some(c) => {
                        let hint = match status {
                            ThreadStatus::Running => {
                                "a run is going on or was killed: call `recover` first"
                            }
                            ThreadStatus::Paused => {
                                "a run waits for review: call `resume` with the decisions first"
                            }
                            ThreadStatus::New | ThreadStatus::Idle => "",
                        };
                        if !hint.is_empty() {
                            return Err(fail(ThreadError::status(&self.id, status, hint)));
                        }
                        let state: S = self.decode(c.state).map_err(fail)?;
                        // The cached transcript (the last run's, shared) or the loaded thread.
                        let history = match (cached, &view) {
                            (Some(transcript), _) => transcript,
                            (None, Some(view)) => view.apply(c.messages).into(),
                            (None, None) => c.messages.into(),
                        };
                        (history, state, Some(c.step))
                    }
                };
                let encoded = serde_json::to_value(&state).map_err(|e| {
                    fail(ThreadError::state::<S>(&self.id, "does not serialize", e))
                })?;
                let mut messages = history;
                // A cached transcript starts with the last run's system message: the core
                // renders the instructions over it, or it goes when there are none.
                let stale = matches!(messages.first(), Some(Message::System { .. }));
                if stale && matches!(self.agent.parts.instructions, Instructions::None) {
                    messages.remove(0);
                }
                let shown = messages.len() - journal::system_offset(&messages);
                let saved = journal::thread_len(shown, view.as_ref());
                let mut input = input.into_messages();
                // The agent's instructions are the thread's system message.
                if saved > 0 && matches!(input.first(), Some(Message::System { .. })) {
                    input.remove(0);
                }
                messages.extend(input);
                let mut journal = self.journal(checkpointer, after, saved, saved, encoded);
                journal.view = view.clone();
                let start = Start::Fresh {
                    input: Input::from_messages(messages),
                    state,
                };
                (start, journal)
            }
            How::Resume(decisions) => {
                let Some(c) = latest.filter(|_| status == ThreadStatus::Paused) else {
                    let hint = "no run waits for review";
                    return Err(fail(ThreadError::status(&self.id, status, hint)));
                };
                let step = c.step;
                let Some((mut pause, info, held)) = self.pause_of(c).map_err(fail)? else {
                    let hint = "no run waits for review";
                    return Err(fail(ThreadError::status(&self.id, status, hint)));
                };
                // A pause at questions: the thread holds the paused answer after the pause's
                // messages; the resumed run replays it without saving it twice.
                let behind = info.paused_at.is_some();
                let saved = held;
                let state = serde_json::to_value(&pause.snapshot.state).map_err(|e| {
                    fail(ThreadError::state::<S>(&self.id, "does not serialize", e))
                })?;
                let messages = std::mem::take(&mut pause.snapshot.messages);
                pause.snapshot.messages =
                    self.with_system(&context, &pause.snapshot.state, messages);
                let id = pause.id.clone();
                let start = self
                    .agent
                    .prepare_resume(Box::new(pause), decisions, false)?;
                let in_thread = InThread {
                    checkpointer,
                    thread_id: &self.id,
                    step,
                };
                self.agent
                    .consume_pause(id.as_deref(), &start, Some(in_thread))
                    .await?;
                let mut journal =
                    self.journal(checkpointer, Some(step), saved, info.run_start, state);
                journal.skip_start = true;
                journal.behind_ok = behind;
                journal.view = view.clone();
                (start, journal)
            }
            How::Recover => {
                let Some(c) = latest.filter(|_| status == ThreadStatus::Running) else {
                    let hint = "no run is going on: start one with `run`";
                    return Err(fail(ThreadError::status(&self.id, status, hint)));
                };
                let mut info = info.unwrap_or_default();
                let run_start = info.run_start;
                let saved = c.messages.len();
                let state: S = self.decode(c.state.clone()).map_err(fail)?;
                // The run goes on from the compacted view, its start where the view shows it.
                let shown = match &view {
                    Some(view) => {
                        info.run_start = view.position(run_start);
                        view.apply(c.messages)
                    }
                    None => c.messages,
                };
                let recovered = recover::recover(shown, c.usage, info, |call| self.reruns(call));
                tracing::debug!(
                    thread = %self.id,
                    step = c.step,
                    replay = recovered.replay.is_some(),
                    "recovering a run from its newest checkpoint"
                );
                let messages = self.with_system(&context, &state, recovered.messages);
                let snapshot = RunSnapshot {
                    messages,
                    state,
                    usage: recovered.usage,
                    request_usage: Vec::new(),
                    steps: recovered.steps,
                    counters: recovered.counters,
                };
                let start = Start::Resume {
                    snapshot: Box::new(snapshot),
                    replay: recovered.replay.map(Box::new),
                };
                let mut journal =
                    self.journal(checkpointer, Some(c.step), saved, run_start, c.state);
                journal.skip_start = true;
                journal.view = view.clone();
                (start, journal)
            }
        };
        let keeper = self
            .lease
            .clone()
            .map(|lease| Arc::new(Keeper::new(lease, self.lease_ttl)));
        journal.keeper = keeper.clone();
        // The thread is the conversation: `gen_ai.conversation.id` on the run's spans.
        let run = drive_saving(self.agent, start, context, sinks, Some(&mut journal));
        let run = crate::telemetry::in_conversation(self.id.as_str(), run);
        let outcome = match heartbeat::kept(keeper.as_deref(), &**checkpointer, run).await {
            Ok(outcome) => journal.finish(outcome).await,
            // The lease could not be kept: the run stopped where it was, the thread left
            // running for the worker that takes it over.
            Err(lost) => return Err(fail(lost)),
        };
        if let (Some(cache), Ok(Outcome::Finished(result)), Some(meta)) =
            (self.cache, &outcome, journal.last.take())
        {
            let view_start = journal.view.as_ref().map(|v| v.start);
            cache.keep(meta, result.messages.clone(), journal.saved, view_start);
        }
        outcome
    }
}
