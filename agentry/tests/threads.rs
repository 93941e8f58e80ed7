//! Running an agent in a thread: history and typed state loaded and saved across runs,
//! checkpoints at each step, a pause saved in the thread and resumed by another agent
//! instance, recovery of a run whose future died mid-batch, time travel by fork.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agentry::agent::{
    Agent, FnTool, NOT_COMPLETED, Outcome, RunErrorKind, ThreadError, ThreadStatus,
};
use agentry::middleware::{Decision, DecisionKind::*, HumanInTheLoop, Middleware};
use agentry::output::TextOutput;
use agentry::persist::{InMemoryCheckpointer, SqliteCheckpointer};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use agentry::{ToolDefinition, ToolOutput};
use serde_json::json;
use tokio::sync::Notify;

#[path = "threads/durability.rs"]
mod durability;
#[path = "threads/recovery.rs"]
mod recovery;

#[derive(Debug, Default)]
struct Shop {
    lookups: AtomicUsize,
    charges: AtomicUsize,
    /// When set, `charge` waits here after counting (a call in flight).
    gate: Option<Arc<Notify>>,
    started: Arc<Notify>,
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
struct Ledger {
    charged: u32,
    looked_up: Vec<String>,
}

/// Look a price up.
///
/// # Arguments
/// * `key` - The item.
#[tool(idempotent)]
async fn lookup(key: String, shop: Context<Shop>, ledger: State<Ledger>) -> String {
    shop.lookups.fetch_add(1, Ordering::SeqCst);
    let k = key.clone();
    ledger.update(move |l| l.looked_up.push(k));
    format!("{key} costs 5")
}

/// Charge the card.
///
/// # Arguments
/// * `amount` - Euros.
#[tool]
async fn charge(amount: u32, shop: Context<Shop>, ledger: State<Ledger>) -> String {
    shop.charges.fetch_add(1, Ordering::SeqCst);
    if let Some(gate) = &shop.gate {
        shop.started.notify_one();
        gate.notified().await;
    }
    ledger.update(move |l| l.charged += amount);
    format!("charged {amount}")
}

/// You run a shop.
#[agent(tools(lookup, charge), context = Shop, state = Ledger)]
struct Cashier;

type Till = Agent<Cashier, TextOutput, Shop, Ledger>;

fn till(
    model: impl agentry::agent::IntoSharedModel,
    cp: Arc<dyn agentry::persist::Checkpointer>,
) -> Till {
    Cashier::builder(model).shared_checkpointer(cp).build()
}

fn call(id: &str, name: &str, args: serde_json::Value) -> ToolCall {
    ToolCall::new(id, name, args.to_string())
}

#[tokio::test]
async fn a_thread_keeps_history_and_typed_state_across_runs_and_agents() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("threads.db");
    {
        let cp = Arc::new(SqliteCheckpointer::open(&path).await.unwrap());
        let model = ScriptedModel::new([
            Turn::tool_call("lookup", json!({"key": "tea"})),
            Turn::text("Tea costs 5."),
        ]);
        let agent = till(model, cp);
        assert_eq!(
            agent.thread("t1").status().await.unwrap(),
            ThreadStatus::New
        );
        let run = agent
            .thread("t1")
            .run("Price of tea?", Shop::default())
            .await
            .unwrap();
        assert_eq!(run.output, "Tea costs 5.");
        assert_eq!(run.state.looked_up, ["tea"]);
    }
    // Another agent on the same file (as another process would be) continues the thread.
    let cp = Arc::new(SqliteCheckpointer::open(&path).await.unwrap());
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("lookup", json!({"key": "milk"})),
        Turn::text("Milk costs 5 too."),
    ]));
    let agent = till(Arc::clone(&model), cp);
    let thread = agent.thread("t1");
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::Idle);
    let run = thread.run("And milk?", Shop::default()).await.unwrap();
    // The state went on from the saved one.
    assert_eq!(run.state.looked_up, ["tea", "milk"]);
    // The request held the first exchange: system, 4 messages of run 1, the new question.
    let sent = &model.requests()[0].messages;
    assert_eq!(sent.len(), 6, "{sent:?}");
    assert!(matches!(&sent[0], Message::System { .. }));
    assert_eq!(sent[1], Message::user("Price of tea?"));
    assert_eq!(sent[5], Message::user("And milk?"));
    // The thread stores messages without the instructions; run 2's transcript has them.
    let stored = thread.messages().await.unwrap();
    assert_eq!(stored.len(), 8);
    assert_eq!(run.messages.len(), 9);
    assert_eq!(&run.messages[1..], &stored[..]);
    assert_eq!(thread.state().await.unwrap().unwrap(), run.state);
    assert_eq!(agent.threads(10).await.unwrap()[0].thread_id, "t1");
}

#[tokio::test]
async fn a_run_saves_its_input_each_answer_each_tool_batch_and_its_end() {
    let cp: Arc<dyn agentry::persist::Checkpointer> = Arc::new(InMemoryCheckpointer::default());
    let model = ScriptedModel::new([
        Turn::tool_calls([
            call("l1", "lookup", json!({"key": "tea"})),
            call("c1", "charge", json!({"amount": 5})),
        ]),
        Turn::text("Done."),
    ]);
    let agent = till(model, Arc::clone(&cp));
    let thread = agent.thread("t");
    thread.run("Buy tea", Shop::default()).await.unwrap();
    let mut history = thread.history(10).await.unwrap();
    history.reverse();
    let counts: Vec<u64> = history.iter().map(|m| m.message_count).collect();
    // input; the answer; both results (one batch); the final answer.
    assert_eq!(counts, [1, 2, 4, 5]);
    // Mid-run checkpoints say a run was going on; the state after the batch has the charge.
    let mid = thread.checkpoint(3).await.unwrap().unwrap();
    assert_eq!(mid.state["charged"], 5);
    assert_eq!(thread.state_at(2).await.unwrap().unwrap().charged, 0);
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::Idle);
}

#[tokio::test]
async fn a_pause_is_saved_in_the_thread_and_resumed_by_another_agent() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("threads.db");
    let reviewed = |model: Arc<ScriptedModel>, cp: Arc<dyn agentry::persist::Checkpointer>| {
        Cashier::builder(model)
            .shared_checkpointer(cp)
            .middleware(HumanInTheLoop::new().review_tool::<charge>(Approve | Reject))
            .build()
    };
    {
        let cp = Arc::new(SqliteCheckpointer::open(&path).await.unwrap());
        let model = Arc::new(ScriptedModel::new([Turn::tool_calls([
            call("l1", "lookup", json!({"key": "tea"})),
            call("c1", "charge", json!({"amount": 5})),
        ])]));
        let agent = reviewed(model, cp);
        let outcome = agent
            .thread("p")
            .run_or_pause("Buy tea", Shop::default())
            .await
            .unwrap();
        assert!(matches!(outcome, Outcome::Paused(_)));
        assert_eq!(
            agent.thread("p").status().await.unwrap(),
            ThreadStatus::Paused
        );
        let err = agent
            .thread("p")
            .run("hello?", Shop::default())
            .await
            .unwrap_err();
        assert!(err.to_string().contains("resume"), "{err}");
    }
    let cp = Arc::new(SqliteCheckpointer::open(&path).await.unwrap());
    let model = Arc::new(ScriptedModel::new([Turn::text("Charged.")]));
    let agent = reviewed(Arc::clone(&model), cp);
    let thread = agent.thread("p");
    let pause = thread.pending().await.unwrap().expect("a saved pause");
    let ids: Vec<String> = pause.reviews().map(|r| r.call_id.clone()).collect();
    assert_eq!(ids, ["c1"]);
    assert_eq!(pause.snapshot.messages, [Message::user("Buy tea")]);
    let shop = Arc::new(Shop::default());
    let run = thread
        .resume([("c1".to_string(), Decision::Approve)], Arc::clone(&shop))
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(model.request_count(), 1);
    assert_eq!(shop.charges.load(Ordering::SeqCst), 1);
    assert_eq!(run.state.charged, 5);
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::Idle);
    assert!(thread.pending().await.unwrap().is_none());
    // user, the answer, two results, the final answer: the answer saved once.
    assert_eq!(thread.messages().await.unwrap().len(), 5);
}

#[tokio::test]
async fn a_fork_travels_back_to_an_earlier_checkpoint() {
    let cp: Arc<dyn agentry::persist::Checkpointer> = Arc::new(InMemoryCheckpointer::default());
    let model = ScriptedModel::new([
        Turn::text("Hi."),
        Turn::tool_call("lookup", json!({"key": "tea"})),
        Turn::text("5."),
        Turn::text("Forked answer."),
    ]);
    let agent = till(model, cp);
    let thread = agent.thread("main");
    thread.run("Hello", Shop::default()).await.unwrap();
    let end_of_first = thread.history(1).await.unwrap()[0].step;
    thread.run("Price of tea?", Shop::default()).await.unwrap();
    let fork = thread.fork(end_of_first, "alt").await.unwrap();
    assert_eq!(fork.messages().await.unwrap().len(), 2);
    assert_eq!(fork.state().await.unwrap().unwrap(), Ledger::default());
    let run = fork.run("Something else", Shop::default()).await.unwrap();
    assert_eq!(run.output, "Forked answer.");
    assert_eq!(thread.messages().await.unwrap().len(), 6);
    assert_eq!(fork.messages().await.unwrap().len(), 4);
    assert!(thread.delete().await.unwrap());
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::New);
    assert_eq!(fork.status().await.unwrap(), ThreadStatus::Idle);
}

#[tokio::test]
async fn a_thread_without_a_checkpointer_is_a_typed_error() {
    let agent = Cashier::builder(ScriptedModel::new([Turn::text("x")])).build();
    let err = agent
        .thread("t")
        .run("hi", Shop::default())
        .await
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        RunErrorKind::Thread(ThreadError::NoCheckpointer)
    ));
    assert!(err.to_string().contains(".checkpointer("), "{err}");
    let _ = Duration::ZERO;
}

#[tokio::test]
async fn a_streamed_run_in_a_thread_is_saved_like_a_plain_one() {
    use agentry::agent::AgentEvent;
    use futures::StreamExt;
    let cp: Arc<dyn agentry::persist::Checkpointer> = Arc::new(InMemoryCheckpointer::default());
    let model = ScriptedModel::new([
        Turn::tool_call("lookup", json!({"key": "tea"})),
        Turn::text("Tea costs 5."),
    ]);
    let agent = till(model, cp);
    let thread = agent.thread("s");
    let mut stream = thread.stream("Price of tea?", Shop::default());
    let mut results = 0;
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            AgentEvent::ToolResult(_) => results += 1,
            AgentEvent::Done { .. } => done = Some(()),
            _ => {}
        }
    }
    assert_eq!(results, 1);
    done.expect("a final event");
    let run = stream.result().await.unwrap();
    assert_eq!(run.output, "Tea costs 5.");
    assert_eq!(thread.messages().await.unwrap().len(), 4);
    assert_eq!(thread.state().await.unwrap().unwrap().looked_up, ["tea"]);
    assert_eq!(thread.history(10).await.unwrap().len(), 4);
}

#[tokio::test]
async fn a_failed_run_leaves_its_transcript_and_the_thread_ready_for_the_next() {
    let cp: Arc<dyn agentry::persist::Checkpointer> = Arc::new(InMemoryCheckpointer::default());
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("lookup", json!({"key": "tea"})),
        Turn::text("Tea costs 5."),
    ]));
    let agent = Cashier::builder(Arc::clone(&model))
        .shared_checkpointer(cp)
        .max_turns(1)
        .build();
    let thread = agent.thread("f");
    let err = thread
        .run("Price of tea?", Shop::default())
        .await
        .unwrap_err();
    assert!(
        matches!(err.kind(), RunErrorKind::LimitExceeded(_)),
        "{err}"
    );
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::Idle);
    // user, the call, its result; the state the tool left.
    assert_eq!(thread.messages().await.unwrap().len(), 3);
    assert_eq!(thread.state().await.unwrap().unwrap().looked_up, ["tea"]);
    let run = thread.run("Well?", Shop::default()).await.unwrap();
    assert_eq!(run.output, "Tea costs 5.");
    assert_eq!(
        model.requests()[1].messages.len(),
        5,
        "system + 3 + the new question"
    );
}

/// Keeps only the system message and the newest message (like a history summarizer would
/// shorten the transcript).
struct ForgetAll;

impl Middleware<Shop, Ledger> for ForgetAll {
    fn before_model<'a>(
        &'a self,
        request: &'a mut agentry::middleware::BeforeModel,
        _cx: &'a agentry::middleware::RunCx<'a, Shop, Ledger>,
    ) -> agentry::middleware::Hook<
        'a,
        Result<agentry::middleware::Flow, agentry::middleware::MiddlewareError>,
    > {
        let last = request.messages.pop();
        request.messages.truncate(1);
        request.messages.extend(last);
        agentry::middleware::Hook::ready(Ok(agentry::middleware::Flow::Continue))
    }
}

#[tokio::test]
async fn a_middleware_that_drops_saved_messages_stops_the_run_with_a_typed_error() {
    let cp: Arc<dyn agentry::persist::Checkpointer> = Arc::new(InMemoryCheckpointer::default());
    let model = ScriptedModel::new([Turn::text("one"), Turn::text("two")]);
    let agent = Cashier::builder(model)
        .shared_checkpointer(cp)
        .middleware(ForgetAll)
        .build();
    let thread = agent.thread("m");
    thread.run("first", Shop::default()).await.unwrap();
    let err = thread.run("second", Shop::default()).await.unwrap_err();
    assert!(
        matches!(
            err.kind(),
            RunErrorKind::Thread(ThreadError::Rewritten {
                saved: 3,
                now: 2,
                ..
            })
        ),
        "{err:?}"
    );
    // The thread keeps what it had saved: the first exchange and the second input.
    assert_eq!(thread.messages().await.unwrap().len(), 3);
}

#[tokio::test]
async fn a_write_under_a_lease_taken_over_stops_the_run() {
    use agentry::persist::{Checkpointer, PersistError};
    let cp = Arc::new(InMemoryCheckpointer::default());
    let a = cp
        .acquire_lease("l", "worker-a", Duration::from_millis(1))
        .await
        .unwrap()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    // Worker B takes the thread over after A's lease expired.
    cp.acquire_lease("l", "worker-b", Duration::from_secs(60))
        .await
        .unwrap()
        .unwrap();
    let agent = till(ScriptedModel::new([Turn::text("x")]), cp);
    let err = agent
        .thread("l")
        .with_lease(a)
        .run("hi", Shop::default())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err.kind(),
            RunErrorKind::Thread(ThreadError::Persist(PersistError::LeaseLost { .. }))
        ),
        "{err:?}"
    );
    assert_eq!(agent.thread("l").status().await.unwrap(), ThreadStatus::New);
}

#[tokio::test]
async fn a_system_message_in_new_input_does_not_land_mid_thread() {
    let cp: Arc<dyn agentry::persist::Checkpointer> = Arc::new(InMemoryCheckpointer::default());
    let model = Arc::new(ScriptedModel::new([Turn::text("one"), Turn::text("two")]));
    let agent = till(Arc::clone(&model), cp);
    let thread = agent.thread("sys");
    thread.run("first", Shop::default()).await.unwrap();
    let input = agentry::agent::Input::from_messages(vec![
        Message::system("You are someone else."),
        Message::user("second"),
    ]);
    thread.run(input, Shop::default()).await.unwrap();
    let sent = &model.requests()[1].messages;
    let systems = sent
        .iter()
        .filter(|m| matches!(m, Message::System { .. }))
        .count();
    assert_eq!(systems, 1, "{sent:?}");
    assert_eq!(sent.len(), 4, "system, first, one, second");
    assert_eq!(thread.messages().await.unwrap().len(), 4);
}
