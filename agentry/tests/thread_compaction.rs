//! Compaction checkpoints: a summarizing middleware compacts a long thread, the thread saves
//! the compacted view while its history keeps every original message, and the next run —
//! in this agent (its cache) or another (loaded) — sends the summary and not the dropped
//! messages. On SQLite and on Postgres (started by the test, see
//! `agentry::testing::PostgresServer`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agentry::Message;
use agentry::agent::{AgentBuilder, Durability, NoTools, ThreadStatus};
use agentry::middleware::Summarization;
use agentry::persist::{
    Checkpoint, CheckpointMeta, CheckpointRef, CheckpointWrite, Checkpointer, Lease, PersistError,
    PostgresCheckpointer, SqliteCheckpointer, ThreadInfo,
};
use agentry::testing::{PostgresServer, ScriptedModel, Turn};
use futures::future::BoxFuture;

fn texts(messages: &[Message]) -> Vec<String> {
    messages.iter().map(Message::text).collect()
}

/// Counts messages, not tokens: over 4 messages, all but the last 2 are summarized.
fn summarize(model: ScriptedModel) -> Summarization {
    Summarization::new(model, 4)
        .keep_last(2)
        .counter(|m: &[Message]| m.len() as u64)
}

const SUMMARY_1: &str = "Summary of the conversation so far:\nS1";
const SUMMARY_2: &str = "Summary of the conversation so far:\nS2";

async fn a_long_thread_is_compacted(cp: Arc<dyn Checkpointer>, durability: Durability) {
    let model = Arc::new(ScriptedModel::new(["a1", "a2", "a3", "a4"].map(Turn::text)));
    let summarizer = ScriptedModel::new([Turn::text("S1"), Turn::text("S2")]);
    let agent = AgentBuilder::<_, _, (), ()>::new(Arc::clone(&model), NoTools)
        .instructions("Be brief.")
        .shared_checkpointer(Arc::clone(&cp))
        .middleware(summarize(summarizer))
        .durability(durability)
        .build();
    let thread = agent.thread("t");
    thread.run("u1", ()).await.unwrap();
    thread.run("u2", ()).await.unwrap();
    // Six messages with the instructions: u1, a1 and u2 become the summary.
    let run = thread.run("u3", ()).await.unwrap();
    assert_eq!(
        texts(&run.messages),
        ["Be brief.", SUMMARY_1, "a2", "u3", "a3"]
    );
    let sent = texts(&model.requests()[2].messages);
    assert_eq!(sent, ["Be brief.", SUMMARY_1, "a2", "u3"]);
    // The history keeps every message; the view is what the model sees.
    let all = ["u1", "a1", "u2", "a2", "u3", "a3"];
    assert_eq!(texts(&thread.messages().await.unwrap()), all);
    assert_eq!(
        texts(&thread.view().await.unwrap()),
        [SUMMARY_1, "a2", "u3", "a3"]
    );
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::Idle);

    // The next run (from the cache) starts from the view and compacts it again: the first
    // summary, a2 and u3 become the second.
    thread.run("u4", ()).await.unwrap();
    let sent = texts(&model.requests()[3].messages);
    assert_eq!(sent, ["Be brief.", SUMMARY_2, "a3", "u4"]);
    assert_eq!(
        texts(&thread.messages().await.unwrap()),
        ["u1", "a1", "u2", "a2", "u3", "a3", "u4", "a4"]
    );

    // Another agent (another worker: nothing cached) loads the view, not the history.
    let other_model = Arc::new(ScriptedModel::new([Turn::text("b1")]));
    let other = AgentBuilder::<_, _, (), ()>::new(Arc::clone(&other_model), NoTools)
        .instructions("Be brief.")
        .shared_checkpointer(Arc::clone(&cp))
        .build();
    let run = other.thread("t").run("u5", ()).await.unwrap();
    let sent = texts(&other_model.requests()[0].messages);
    assert_eq!(sent, ["Be brief.", SUMMARY_2, "a3", "u4", "a4", "u5"]);
    assert_eq!(run.messages.len(), 7);
    assert_eq!(other.thread("t").messages().await.unwrap().len(), 10);
}

#[tokio::test]
async fn a_long_thread_is_compacted_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let cp = SqliteCheckpointer::open(dir.path().join("t.db"))
        .await
        .unwrap();
    a_long_thread_is_compacted(Arc::new(cp), Durability::Step).await;
}

/// A run that saves only its end still saves the compaction's view when it is made, and
/// its end appends to that view.
#[tokio::test]
async fn a_long_thread_is_compacted_when_runs_save_only_their_end() {
    let dir = tempfile::tempdir().unwrap();
    let cp = SqliteCheckpointer::open(dir.path().join("t.db"))
        .await
        .unwrap();
    let cp: Arc<dyn Checkpointer> = Arc::new(cp);
    a_long_thread_is_compacted(Arc::clone(&cp), Durability::Exit).await;
    // With a middleware that may compact, a run saving its end saves before each request
    // too: every run its input and its end, runs 3 and 4 their compaction as well.
    let steps = cp.history("t", 20).await.unwrap().len();
    assert_eq!(steps, 12);
}

/// One long run whose own messages are summarized: a run saving only its end saved them
/// before the request whose hook compacted them, so the thread's history keeps each one.
#[tokio::test]
async fn a_run_whose_own_messages_are_compacted_keeps_them_in_the_history() {
    use agentry::agent::FnTool;
    use agentry::tool::ToolRuntime;
    use agentry::{ToolCall, ToolDefinition, ToolOutput};
    let echo = FnTool::new(
        ToolDefinition::new(
            "echo",
            "Echo.",
            serde_json::json!({"type": "object"}),
            false,
        ),
        |_: serde_json::Value, _: &ToolRuntime<(), ()>| async { Ok(ToolOutput::text("echoed")) },
    );
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([ToolCall::new("c1", "echo", "{}")]),
        Turn::tool_calls([ToolCall::new("c2", "echo", "{}")]),
        Turn::tool_calls([ToolCall::new("c3", "echo", "{}")]),
        Turn::text("done"),
    ]));
    let dir = tempfile::tempdir().unwrap();
    let cp: Arc<dyn Checkpointer> = Arc::new(
        SqliteCheckpointer::open(dir.path().join("t.db"))
            .await
            .unwrap(),
    );
    let summarizer = ScriptedModel::new([Turn::text("S1"), Turn::text("S2")]);
    let agent = AgentBuilder::<_, _, (), ()>::new(Arc::clone(&model), NoTools)
        .dyn_tool(echo)
        .shared_checkpointer(Arc::clone(&cp))
        .middleware(summarize(summarizer))
        .durability(Durability::Exit)
        .build();
    let thread = agent.thread("long");
    let run = thread.run("go", ()).await.unwrap();
    assert_eq!(run.output, "done");
    // The model saw a summary: the run's own first messages were compacted.
    let last = texts(&model.requests()[3].messages);
    assert!(
        last[0].starts_with("Summary of the conversation so far:"),
        "{last:?}"
    );
    // The history keeps all eight messages the run made; the view starts with a summary.
    assert_eq!(thread.messages().await.unwrap().len(), 8);
    assert!(texts(&thread.view().await.unwrap())[0].starts_with("Summary"));
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::Idle);
}

#[tokio::test]
async fn a_long_thread_is_compacted_on_postgres() {
    let server = PostgresServer::start().unwrap_or_else(|e| panic!("{e}"));
    let cp = PostgresCheckpointer::connect(&server.url()).await.unwrap();
    a_long_thread_is_compacted(Arc::new(cp), Durability::Step).await;
}

/// A checkpointer whose writes of a compacted view never complete while `hang` is set: the
/// process "dies" between the summary and the compaction checkpoint.
struct HangOnCompaction {
    inner: SqliteCheckpointer,
    hang: AtomicBool,
}

impl Checkpointer for HangOnCompaction {
    fn put<'a>(
        &'a self,
        write: CheckpointWrite<'a>,
    ) -> BoxFuture<'a, Result<CheckpointMeta, PersistError>> {
        if self.hang.load(Ordering::SeqCst) && write.counters.get("view").is_some() {
            return Box::pin(futures::future::pending());
        }
        self.inner.put(write)
    }
    fn latest<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>, PersistError>> {
        self.inner.latest(thread_id)
    }
    fn get<'a>(
        &'a self,
        thread_id: &'a str,
        step: u64,
    ) -> BoxFuture<'a, Result<Option<Checkpoint>, PersistError>> {
        self.inner.get(thread_id, step)
    }
    fn history<'a>(
        &'a self,
        thread_id: &'a str,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<CheckpointMeta>, PersistError>> {
        self.inner.history(thread_id, limit)
    }
    fn threads<'a>(&'a self, limit: usize) -> BoxFuture<'a, Result<Vec<ThreadInfo>, PersistError>> {
        self.inner.threads(limit)
    }
    fn delete_thread<'a>(
        &'a self,
        thread_id: &'a str,
    ) -> BoxFuture<'a, Result<bool, PersistError>> {
        self.inner.delete_thread(thread_id)
    }
    fn fork<'a>(
        &'a self,
        from: &'a CheckpointRef,
        new_thread_id: &'a str,
    ) -> BoxFuture<'a, Result<CheckpointMeta, PersistError>> {
        self.inner.fork(from, new_thread_id)
    }
    fn acquire_lease<'a>(
        &'a self,
        thread_id: &'a str,
        worker: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Option<Lease>, PersistError>> {
        self.inner.acquire_lease(thread_id, worker, ttl)
    }
    fn renew_lease<'a>(
        &'a self,
        lease: &'a Lease,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<Lease, PersistError>> {
        self.inner.renew_lease(lease, ttl)
    }
    fn release_lease<'a>(&'a self, lease: &'a Lease) -> BoxFuture<'a, Result<(), PersistError>> {
        self.inner.release_lease(lease)
    }
}

#[tokio::test]
async fn a_crash_between_the_summary_and_the_compaction_checkpoint_leaves_the_thread_whole() {
    let dir = tempfile::tempdir().unwrap();
    let cp = Arc::new(HangOnCompaction {
        inner: SqliteCheckpointer::open(dir.path().join("t.db"))
            .await
            .unwrap(),
        hang: AtomicBool::new(false),
    });
    // "lost": the answer of the run that dies (the compaction checkpoint is written once the
    // turn's answer is back, before the run takes it in).
    let model = Arc::new(ScriptedModel::new(
        ["a1", "a2", "lost", "a3"].map(Turn::text),
    ));
    let summarizer = Arc::new(ScriptedModel::new([Turn::text("S0"), Turn::text("S1")]));
    let agent = AgentBuilder::<_, _, (), ()>::new(Arc::clone(&model), NoTools)
        .instructions("Be brief.")
        .shared_checkpointer(Arc::clone(&cp) as Arc<dyn Checkpointer>)
        .middleware(
            Summarization::new(Arc::clone(&summarizer), 4)
                .keep_last(2)
                .counter(|m: &[Message]| m.len() as u64),
        )
        .build();
    let thread = agent.thread("t");
    thread.run("u1", ()).await.unwrap();
    thread.run("u2", ()).await.unwrap();
    cp.hang.store(true, Ordering::SeqCst);
    // The summary is written, the compaction checkpoint never is: the run is dropped there.
    let crashed = tokio::time::timeout(Duration::from_millis(500), thread.run("u3", ())).await;
    assert!(
        crashed.is_err(),
        "the run should hang at the compaction write"
    );
    assert_eq!(summarizer.requests().len(), 1);
    // The thread is as it was before the summary: its input saved, the run to recover.
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::Running);
    assert_eq!(
        texts(&thread.messages().await.unwrap()),
        ["u1", "a1", "u2", "a2", "u3"]
    );
    assert_eq!(
        texts(&thread.view().await.unwrap()),
        ["u1", "a1", "u2", "a2", "u3"]
    );
    cp.hang.store(false, Ordering::SeqCst);
    // Recovery summarizes again and saves the compaction this time.
    let recovered = thread.recover(()).await.unwrap();
    assert!(matches!(recovered, agentry::agent::Outcome::Finished(_)));
    assert_eq!(model.requests().len(), 4);
    assert_eq!(
        texts(&model.requests()[3].messages),
        [
            "Be brief.",
            "Summary of the conversation so far:\nS1",
            "a2",
            "u3"
        ]
    );
    assert_eq!(
        texts(&thread.messages().await.unwrap()),
        ["u1", "a1", "u2", "a2", "u3", "a3"]
    );
    assert_eq!(
        texts(&thread.view().await.unwrap()),
        ["Summary of the conversation so far:\nS1", "a2", "u3", "a3"]
    );
}

/// Summarizes messages in the middle of the transcript (not its oldest ones).
struct CompactTheMiddle;

impl agentry::middleware::Middleware<(), ()> for CompactTheMiddle {
    fn before_model<'a>(
        &'a self,
        request: &'a mut agentry::middleware::BeforeModel,
        _cx: &'a agentry::middleware::RunCx<'a, (), ()>,
    ) -> agentry::middleware::Hook<
        'a,
        Result<agentry::middleware::Flow, agentry::middleware::MiddlewareError>,
    > {
        if request.messages.len() >= 4 {
            request.compact(2, 4, Message::user("summary of the middle"));
            assert!(request.compacted().is_some());
        }
        agentry::middleware::Hook::ready(Ok(agentry::middleware::Flow::Continue))
    }
}

#[tokio::test]
async fn a_compaction_that_is_not_of_the_oldest_messages_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cp = SqliteCheckpointer::open(dir.path().join("t.db"))
        .await
        .unwrap();
    let model = ScriptedModel::new(["a1", "a2"].map(Turn::text));
    let agent = AgentBuilder::<_, _, (), ()>::new(model, NoTools)
        .instructions("Be brief.")
        .checkpointer(cp)
        .middleware(CompactTheMiddle)
        .build();
    let thread = agent.thread("t");
    thread.run("u1", ()).await.unwrap();
    let err = thread.run("u2", ()).await.unwrap_err();
    assert!(
        matches!(
            err.kind(),
            agentry::agent::RunErrorKind::Thread(agentry::agent::ThreadError::Rewritten { .. })
        ),
        "{err:?}"
    );
    // The thread keeps every message it saved, and no view.
    assert_eq!(texts(&thread.messages().await.unwrap()), ["u1", "a1", "u2"]);
    assert_eq!(texts(&thread.view().await.unwrap()), ["u1", "a1", "u2"]);
}

/// A thread that compacts, pauses for review in the same run, and is resumed from SQLite by
/// another agent: the pause keeps the compacted view, the approved call runs once, the run
/// after the resume compacts again (keeping the tool call with its result) and finishes.
#[tokio::test]
async fn a_compacted_thread_pauses_for_review_and_resumes_on_sqlite() {
    use agentry::agent::{FnTool, Outcome};
    use agentry::middleware::{Decision, DecisionKind, HumanInTheLoop};
    use agentry::tool::ToolDefinition;
    use agentry::{ToolCall, ToolOutput, ToolRuntime};
    use std::sync::atomic::AtomicUsize;

    let dir = tempfile::tempdir().unwrap();
    let cp: Arc<dyn Checkpointer> = Arc::new(
        SqliteCheckpointer::open(dir.path().join("t.db"))
            .await
            .unwrap(),
    );
    let sent_mail = Arc::new(AtomicUsize::new(0));
    let agent_with = |model: Arc<ScriptedModel>, summarizer: ScriptedModel| {
        let counter = Arc::clone(&sent_mail);
        let send = FnTool::new(
            ToolDefinition::new(
                "send",
                "Sends the note.",
                serde_json::json!({"type": "object", "properties": {}}),
                false,
            ),
            move |_args: serde_json::Value, _rt: &ToolRuntime| {
                let counter = Arc::clone(&counter);
                async move {
                    counter.fetch_add(1, Ordering::SeqCst);
                    Ok(ToolOutput::text("sent"))
                }
            },
        );
        AgentBuilder::<_, _, (), ()>::new(model, NoTools)
            .instructions("Be brief.")
            .dyn_tool(send)
            .shared_checkpointer(Arc::clone(&cp))
            .middleware(HumanInTheLoop::new().review("send", DecisionKind::Approve))
            .middleware(summarize(summarizer))
            .build()
    };

    let model = Arc::new(ScriptedModel::new([
        Turn::text("a1"),
        Turn::text("a2"),
        Turn::tool_calls([ToolCall::new("c1", "send", "{}")]),
    ]));
    let agent = agent_with(Arc::clone(&model), ScriptedModel::new([Turn::text("S1")]));
    let thread = agent.thread("t");
    thread.run("u1", ()).await.unwrap();
    thread.run("u2", ()).await.unwrap();
    // The third run compacts u1, a1 and u2, then the model asks for the reviewed tool.
    let outcome = thread.run_or_pause("u3", ()).await.unwrap();
    let Outcome::Paused(pause) = outcome else {
        panic!("the run should pause for review");
    };
    assert_eq!(pause.calls.len(), 1);
    assert_eq!(
        texts(&model.requests()[2].messages),
        ["Be brief.", SUMMARY_1, "a2", "u3"]
    );
    assert_eq!(sent_mail.load(Ordering::SeqCst), 0);
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::Paused);
    assert!(thread.pending().await.unwrap().is_some());

    // Another agent (nothing cached) resumes from the database: the call runs once, the next
    // request is over the budget again and compacts the summary, a2 and u3, keeping the call
    // with its result.
    let rest = Arc::new(ScriptedModel::new([Turn::text("done")]));
    let other = agent_with(Arc::clone(&rest), ScriptedModel::new([Turn::text("S2")]));
    let run = other
        .thread("t")
        .resume([("c1".to_string(), Decision::Approve)], ())
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(sent_mail.load(Ordering::SeqCst), 1);
    let sent = &rest.requests()[0].messages;
    assert_eq!(sent.len(), 4, "{:?}", texts(sent));
    assert_eq!(texts(&sent[..2]), ["Be brief.", SUMMARY_2]);
    assert!(matches!(&sent[2], Message::Assistant(m) if m.tool_calls[0].id == "c1"));
    assert!(matches!(&sent[3], Message::Tool(m) if m.call_id == "c1" && !m.is_error));
    assert_eq!(run.output, "done");
    rest.assert_complete();

    // The history keeps every message; the thread is idle and takes another run.
    let all = texts(&other.thread("t").messages().await.unwrap());
    assert_eq!(all[..5], ["u1", "a1", "u2", "a2", "u3"]);
    assert_eq!(all.last().map(String::as_str), Some("done"));
    assert_eq!(
        other.thread("t").status().await.unwrap(),
        ThreadStatus::Idle
    );
    assert!(other.thread("t").pending().await.unwrap().is_none());
}
