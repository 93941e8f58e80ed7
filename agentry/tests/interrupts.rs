//! Questions from inside a tool: an `Interrupt` parameter pauses the whole run with a typed
//! question; resuming with the answer re-runs the tool from its start with the answer
//! supplied. Through `run_or_pause`, streams, threads, a sealed pause, single use, and the
//! ReAct protocol.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentry::agent::{
    Agent, AgentEvent, Outcome, Pause, PauseKey, ResumeError, RunErrorKind, ThreadStatus,
};
use agentry::middleware::{Decision, DecisionKind};
use agentry::output::TextOutput;
use agentry::persist::{Checkpointer, InMemoryCheckpointer};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use agentry::tool::QuestionKind;
use futures::StreamExt;
use serde_json::json;

#[path = "interrupts/by_hand.rs"]
mod by_hand;
#[path = "interrupts/paths.rs"]
mod paths;
#[path = "interrupts/sub_agents.rs"]
mod sub_agents;

#[derive(Debug, Default)]
struct Shop {
    /// How many times code before the first ask ran.
    before_ask: AtomicUsize,
    /// How many refunds were made (after the ask).
    refunds: AtomicUsize,
    lookups: AtomicUsize,
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
struct Ledger {
    refunded: Vec<String>,
    looked_up: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Confirm {
    order: String,
    amount: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Approval {
    approved: bool,
    note: String,
}

/// Refund an order, after a person confirms it.
///
/// # Arguments
/// * `order` - The order id.
#[tool]
async fn refund(
    order: String,
    shop: Context<Shop>,
    ledger: State<Ledger>,
    ask: Interrupt<Confirm, Approval>,
) -> String {
    shop.before_ask.fetch_add(1, Ordering::SeqCst);
    let approval = ask
        .ask(Confirm {
            order: order.clone(),
            amount: 42,
        })
        .await;
    if !approval.approved {
        return format!("refund of {order} declined: {}", approval.note);
    }
    shop.refunds.fetch_add(1, Ordering::SeqCst);
    let line = order.clone();
    ledger.update(move |l| l.refunded.push(line));
    format!("refunded {order} ({})", approval.note)
}

/// Look an order up.
///
/// # Arguments
/// * `order` - The order id.
#[tool]
async fn lookup(order: String, shop: Context<Shop>, ledger: State<Ledger>) -> String {
    shop.lookups.fetch_add(1, Ordering::SeqCst);
    ledger.update(|l| l.looked_up += 1);
    format!("{order}: paid 42")
}

/// Ask two things, in order.
#[tool]
async fn two_questions(ask: Interrupt<String, u32>) -> String {
    let first = ask.ask("how many apples?".to_string()).await;
    let second = ask.ask("how many pears?".to_string()).await;
    format!("{first} apples, {second} pears")
}

/// You handle refunds.
#[agent(tools(refund, lookup, two_questions), context = Shop, state = Ledger)]
struct Desk;

fn refund_turn() -> Turn {
    Turn::tool_calls([
        ToolCall::new("l1", "lookup", json!({"order": "A7"}).to_string()),
        ToolCall::new("r1", "refund", json!({"order": "A7"}).to_string()),
    ])
    .with_usage(Usage {
        input_tokens: 10,
        output_tokens: 4,
        requests: 1,
        ..Usage::default()
    })
}

fn model() -> Arc<ScriptedModel> {
    Arc::new(ScriptedModel::new([
        refund_turn(),
        Turn::text("Done.").with_usage(Usage {
            input_tokens: 30,
            output_tokens: 2,
            requests: 1,
            ..Usage::default()
        }),
    ]))
}

fn paused<T: std::fmt::Debug, S>(outcome: Outcome<T, S>) -> Pause<S> {
    match outcome {
        Outcome::Paused(pause) => *pause,
        Outcome::Finished(run) => panic!("expected a pause, got {:?}", run.output),
    }
}

/// The desk's run of "Refund A7": it stops at the refund's question.
async fn refund_a7(
    agent: &DeskAgent,
    shop: impl agentry::agent::IntoContext<Shop>,
) -> Pause<Ledger> {
    paused(agent.run_or_pause("Refund A7", shop).await.unwrap())
}

fn yes() -> Approval {
    Approval {
        approved: true,
        note: "ok by Ada".into(),
    }
}

fn tool_texts(messages: &[Message]) -> Vec<(String, String)> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool(t) => Some((t.call_id.clone(), m.text())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_question_pauses_the_run_and_the_answer_reruns_the_tool_from_its_start() {
    let model = model();
    let agent: DeskAgent = Desk::builder(Arc::clone(&model)).build();
    let shop = Arc::new(Shop::default());
    let pause = refund_a7(&agent, Arc::clone(&shop)).await;
    assert_eq!(pause.format_version, agentry::agent::PAUSE_FORMAT_VERSION);
    assert_eq!(pause.format_version, 3);
    // The ordinary call of the same answer ran before the stop; the asking call stopped at
    // its question, after the code before the ask ran once.
    assert_eq!(shop.lookups.load(Ordering::SeqCst), 1);
    assert_eq!(shop.before_ask.load(Ordering::SeqCst), 1);
    assert_eq!(shop.refunds.load(Ordering::SeqCst), 0);
    assert_eq!(
        pause.state().looked_up,
        1,
        "the finished call's update is kept"
    );
    let questions: Vec<_> = pause.questions().collect();
    assert_eq!(questions.len(), 1);
    assert_eq!(questions[0].call_id(), "r1");
    assert!(!questions[0].is_external());
    assert_eq!(
        questions[0].question_as::<Confirm>().unwrap(),
        Confirm {
            order: "A7".into(),
            amount: 42
        }
    );
    assert_eq!(pause.calls[0].result.as_ref().unwrap().call_id, "l1");
    assert!(pause.calls[1].result.is_none());
    // The pause is the run before the answer: the answer and its usage are replayed.
    assert_eq!(
        pause.snapshot.messages,
        [
            Message::system("You handle refunds."),
            Message::user("Refund A7")
        ]
    );
    assert_eq!(pause.snapshot.usage, Usage::default());
    assert!(pause.snapshot.steps.is_empty());
    assert_eq!(pause.answer.response.usage.input_tokens, 10);
    assert!(pause.reviews().next().is_none());

    // The pause travels as JSON.
    let text = serde_json::to_string(&pause).unwrap();
    let pause: Pause<Ledger> = serde_json::from_str(&text).unwrap();
    let answer = pause.questions().next().unwrap().answer(yes()).unwrap();

    let run = agent
        .resume(pause, [answer], Arc::clone(&shop))
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.output, "Done.");
    // The model was not asked for the paused answer again.
    assert_eq!(model.request_count(), 2);
    // Code before the ask ran twice (documented); the lookup did not run again.
    assert_eq!(shop.before_ask.load(Ordering::SeqCst), 2);
    assert_eq!(shop.refunds.load(Ordering::SeqCst), 1);
    assert_eq!(shop.lookups.load(Ordering::SeqCst), 1);
    assert_eq!(run.state.looked_up, 1);
    assert_eq!(run.state.refunded, ["A7"]);
    assert_eq!(
        tool_texts(&run.messages),
        [
            ("l1".to_string(), "A7: paid 42".to_string()),
            ("r1".to_string(), "refunded A7 (ok by Ada)".to_string()),
        ]
    );
    assert_eq!(run.steps.len(), 2);
    assert_eq!(run.usage.input_tokens, 40, "each answer counted once");
    // The model's second request holds both results, in the call order.
    let second = &model.requests()[1].messages;
    assert_eq!(tool_texts(second).len(), 2);
}

#[tokio::test]
async fn a_wrong_shaped_answer_is_a_resume_error_and_nothing_runs() {
    let model = model();
    let agent: DeskAgent = Desk::builder(Arc::clone(&model)).build();
    let shop = Arc::new(Shop::default());
    let pause = refund_a7(&agent, Arc::clone(&shop)).await;
    let bad = Decision::Answer {
        answer: json!({"approved": "yes please"}),
    };
    let err = agent
        .resume(pause.clone(), [("r1".to_string(), bad)], Arc::clone(&shop))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err.kind(),
            RunErrorKind::Resume(ResumeError::InvalidAnswer { call_id, tool, .. })
                if call_id == "r1" && tool == "refund"
        ),
        "{err}"
    );
    // No answer, or a review decision in its place, is refused too.
    let err = agent
        .resume(
            pause.clone(),
            Vec::<(String, Decision)>::new(),
            Arc::clone(&shop),
        )
        .await
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        RunErrorKind::Resume(ResumeError::MissingDecision { .. })
    ));
    let err = agent
        .resume(
            pause.clone(),
            [("r1".to_string(), Decision::Approve)],
            Arc::clone(&shop),
        )
        .await
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        RunErrorKind::Resume(ResumeError::NotAllowed {
            decision: DecisionKind::Approve,
            ..
        })
    ));
    // An answer to a call that asked nothing.
    let err = agent
        .resume(
            pause,
            [("l1".to_string(), Decision::answer(yes()).unwrap())],
            Arc::clone(&shop),
        )
        .await
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        RunErrorKind::Resume(ResumeError::NotUnderReview { .. })
    ));
    assert_eq!(shop.before_ask.load(Ordering::SeqCst), 1);
    assert_eq!(shop.lookups.load(Ordering::SeqCst), 1);
    assert_eq!(model.request_count(), 1);
    // `run` cannot return the pause: it names the tool that asked.
    let agent: DeskAgent = Desk::builder(self::model()).build();
    let err = agent.run("Refund A7", Shop::default()).await.unwrap_err();
    assert!(
        matches!(err.kind(), RunErrorKind::Paused { tools } if tools == &["refund"]),
        "{err}"
    );
}

#[tokio::test]
async fn several_asks_in_one_tool_are_answered_in_order() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("two_questions", json!({})),
        Turn::text("Counted."),
    ]));
    let agent: DeskAgent = Desk::builder(Arc::clone(&model)).build();
    let first = paused(agent.run_or_pause("Count", Shop::default()).await.unwrap());
    let q = first.questions().next().unwrap();
    assert_eq!(q.question(), &json!("how many apples?"));
    let answer = q.answer(3u32).unwrap();
    let second = paused(
        agent
            .resume(first.clone(), [answer], Shop::default())
            .await
            .unwrap(),
    );
    let q = second.questions().next().unwrap();
    assert_eq!(q.question(), &json!("how many pears?"));
    assert_eq!(q.question.answered, [json!(3)]);
    let answer = q.answer(5u32).unwrap();
    let run = agent
        .resume(second, [answer], Shop::default())
        .await
        .unwrap()
        .finished()
        .unwrap();
    let texts: Vec<String> = tool_texts(&run.messages)
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    assert_eq!(texts, ["3 apples, 5 pears"]);
    assert_eq!(model.request_count(), 2);
}

#[tokio::test]
async fn a_middleware_that_handles_tool_errors_does_not_swallow_a_question() {
    // The call stops at its question outside the middleware chain: wrapping middleware sees
    // no error, and the run pauses as without it.
    let agent: DeskAgent = Desk::builder(model())
        .middleware(agentry::middleware::ToolErrorHandler::always("unavailable"))
        .build();
    let pause = refund_a7(&agent, Shop::default()).await;
    assert_eq!(pause.questions().count(), 1);
    let answer = pause.questions().next().unwrap().answer(yes()).unwrap();
    let run = agent
        .resume(pause, [answer], Shop::default())
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.state.refunded, ["A7"]);
}
