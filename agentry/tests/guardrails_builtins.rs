//! The built-in guardrails in runs (PII, block list, length, LLM judge), guardrails declared
//! in `#[agent(guardrails(...))]`, and a tripped guardrail in a thread.

use std::sync::Arc;

use agentry::agent::{AgentBuilder, NoTools, RunErrorKind, ThreadStatus};
use agentry::guard::builtin::{
    BlockList, JudgeReason, Listed, LlmJudge, MaxLength, PiiCheck, PiiFound, SafetyVerdict, TooLong,
};
use agentry::middleware::PiiKind;
use agentry::persist::InMemoryCheckpointer;
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::json;

fn guardrail(error: &RunError) -> (&str, &agentry::guard::GuardReason) {
    match error.kind() {
        RunErrorKind::Guardrail { name, reason } => (name, reason),
        other => panic!("not a guardrail error: {other}"),
    }
}

#[tokio::test]
async fn pii_blocks_input_by_kind_without_echoing_the_data() {
    let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("ok")]), NoTools)
        .input_guardrail(PiiCheck::block([PiiKind::CreditCard]))
        .build();
    let error = agent
        .run("charge 4111 1111 1111 1111", ())
        .await
        .unwrap_err();
    let (name, reason) = guardrail(&error);
    assert_eq!(name, "pii");
    assert_eq!(
        reason.downcast_ref::<PiiFound>(),
        Some(&PiiFound::Kind("credit_card".into()))
    );
    assert!(!error.to_string().contains("4111"), "{error}");
}

#[tokio::test]
async fn pii_redacts_input_and_the_request_is_made_with_the_redacted_message() {
    let model = Arc::new(ScriptedModel::new([
        Turn::text("first"),
        Turn::text("second"),
    ]));
    let agent = AgentBuilder::<_, _, (), ()>::new(Arc::clone(&model), NoTools)
        .input_guardrail(PiiCheck::redact([PiiKind::Email]))
        .build();
    let run = agent.run("write to ada@example.com", ()).await.unwrap();
    let last = model.requests().pop().unwrap();
    assert_eq!(
        last.messages.last().unwrap().text(),
        "write to [REDACTED_EMAIL]"
    );
    assert_eq!(run.output, "second");
    // A clean message is not rewritten: one request.
    let model = Arc::new(ScriptedModel::new([Turn::text("only")]));
    let agent = AgentBuilder::<_, _, (), ()>::new(Arc::clone(&model), NoTools)
        .input_guardrail(PiiCheck::redact([PiiKind::Email]))
        .build();
    assert_eq!(agent.run("no data here", ()).await.unwrap().output, "only");
    assert_eq!(model.request_count(), 1);
}

/// A contact card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, StructuredOutput)]
struct Card {
    /// Name.
    name: String,
    /// Email.
    email: String,
}

#[agent(tools(), output = Card, guardrails(output(PiiCheck::redact([PiiKind::Email]))))]
struct CardMaker;

#[tokio::test]
async fn pii_redacts_the_strings_of_a_typed_output() {
    let model = ScriptedModel::new([Turn::tool_call(
        "Card",
        json!({"name": "Ada", "email": "ada@example.com"}),
    )]);
    let run = CardMaker::builder(model)
        .build()
        .run("card", ())
        .await
        .unwrap();
    assert_eq!(
        run.output,
        Card {
            name: "Ada".into(),
            email: "[REDACTED_EMAIL]".into()
        }
    );
}

/// Fetch a record.
#[tool]
fn fetch() -> String {
    "owner: bob@example.com".to_string()
}

#[tokio::test]
async fn pii_redacts_a_tool_result_before_the_model_sees_it() {
    #[agent(tools(fetch), guardrails(tool_output(PiiCheck::redact([PiiKind::Email]))))]
    struct Fetcher;
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("fetch", json!({})),
        Turn::text("done"),
    ]));
    Fetcher::builder(Arc::clone(&model))
        .build()
        .run("go", ())
        .await
        .unwrap();
    assert_eq!(
        model.requests()[1].messages.last().unwrap().text(),
        "owner: [REDACTED_EMAIL]"
    );
}

/// Run a shell command.
///
/// # Arguments
/// * `command` - The command.
#[tool]
fn shell(command: String) -> String {
    format!("ran {command}")
}

#[agent(
    tools(shell),
    guardrails(
        tool_input(BlockList::patterns([r"\brm\s+-rf\b"]).unwrap()),
        input(MaxLength::chars(40))
    )
)]
struct Sysadmin;

#[tokio::test]
async fn a_block_list_pattern_stops_a_tool_call_and_max_length_a_long_message() {
    let model = ScriptedModel::new([Turn::tool_call("shell", json!({"command": "rm  -rf /"}))]);
    let error = Sysadmin::builder(model)
        .build()
        .run("clean up", ())
        .await
        .unwrap_err();
    let (name, reason) = guardrail(&error);
    assert_eq!(name, "block_list");
    assert_eq!(
        reason.downcast_ref::<Listed>(),
        Some(&Listed::Pattern(r"\brm\s+-rf\b".into()))
    );
    assert!(error.partial().steps.iter().all(|s| s.result.is_err()));

    let model = ScriptedModel::new([
        Turn::tool_call("shell", json!({"command": "ls"})),
        Turn::text("ok"),
    ]);
    let run = Sysadmin::builder(model)
        .build()
        .run("list files", ())
        .await
        .unwrap();
    assert_eq!(run.output, "ok");

    let model = ScriptedModel::new([Turn::text("never used")]);
    let error = Sysadmin::builder(model)
        .build()
        .run("x".repeat(41), ())
        .await
        .unwrap_err();
    let (name, reason) = guardrail(&error);
    assert_eq!(name, "max_length");
    assert_eq!(
        reason.downcast_ref::<TooLong>(),
        Some(&TooLong { max: 40, chars: 41 })
    );
}

#[tokio::test]
async fn a_block_list_checks_every_string_of_an_output() {
    #[agent(tools(), output = Card, guardrails(output(BlockList::keywords(["Mallory"]).named("no_mallory"))))]
    struct Cards;
    let model = ScriptedModel::new([Turn::tool_call(
        "Card",
        json!({"name": "mallory", "email": "m@x.io"}),
    )]);
    let error = Cards::builder(model)
        .build()
        .run("card", ())
        .await
        .unwrap_err();
    assert_eq!(guardrail(&error).0, "no_mallory");
}

fn verdict(allowed: bool, reason: &str) -> Turn {
    Turn::text(json!({"allowed": allowed, "reason": reason}).to_string())
}

#[tokio::test]
async fn an_llm_judge_passes_or_blocks_with_its_typed_verdict() {
    let judge_model = Arc::new(ScriptedModel::new([
        verdict(true, "about cooking"),
        verdict(false, "not about cooking"),
    ]));
    let judge = || {
        LlmJudge::<SafetyVerdict>::new(Arc::clone(&judge_model), "Allow only cooking questions.")
    };
    let agent =
        AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("Boil it.")]), NoTools)
            .input_guardrail(judge())
            .build();
    assert_eq!(
        agent.run("How do I cook pasta?", ()).await.unwrap().output,
        "Boil it."
    );
    // The judge saw the policy and the user's message.
    let asked = &judge_model.requests()[0];
    assert_eq!(asked.messages[0].text(), "Allow only cooking questions.");
    assert_eq!(asked.messages[1].text(), "How do I cook pasta?");

    let agent =
        AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("unused")]), NoTools)
            .input_guardrail(judge())
            .build();
    let error = agent.run("Who won the match?", ()).await.unwrap_err();
    let (name, reason) = guardrail(&error);
    assert_eq!(name, "llm_judge");
    let Some(JudgeReason::Verdict(v)) = reason.downcast_ref::<JudgeReason<SafetyVerdict>>() else {
        panic!("{reason:?}")
    };
    assert_eq!(
        v,
        &SafetyVerdict {
            allowed: false,
            reason: "not about cooking".into()
        }
    );
    assert_eq!(reason.to_string(), "not about cooking");
}

#[tokio::test]
async fn an_llm_judge_that_cannot_answer_blocks_unless_it_fails_open() {
    let broken = || {
        ScriptedModel::new([Turn::error(agentry::model::ModelError::Incomplete(
            "down".into(),
        ))])
    };
    let agent =
        AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("answer")]), NoTools)
            .output_guardrail(LlmJudge::<SafetyVerdict>::new(broken(), "Be kind."))
            .build();
    let error = agent.run("hi", ()).await.unwrap_err();
    assert!(matches!(
        guardrail(&error)
            .1
            .downcast_ref::<JudgeReason<SafetyVerdict>>(),
        Some(JudgeReason::Unavailable(_))
    ));
    let agent =
        AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("answer")]), NoTools)
            .output_guardrail(LlmJudge::<SafetyVerdict>::new(broken(), "Be kind.").fail_open())
            .build();
    assert_eq!(agent.run("hi", ()).await.unwrap().output, "answer");
}

#[tokio::test]
async fn a_tripped_guardrail_in_a_thread_fails_the_run_and_the_thread_keeps_its_transcript() {
    let agent = AgentBuilder::<_, _, (), ()>::new(
        ScriptedModel::new([Turn::text("fine"), Turn::text("unused")]),
        NoTools,
    )
    .input_guardrail(BlockList::keywords(["forbidden"]))
    .checkpointer(InMemoryCheckpointer::default())
    .build();
    let thread = agent.thread("t1");
    assert_eq!(thread.run("hello", ()).await.unwrap().output, "fine");
    let error = thread.run("something forbidden", ()).await.unwrap_err();
    assert_eq!(guardrail(&error).0, "block_list");
    // Failed runs leave the thread idle, ready for the next input.
    assert_eq!(thread.status().await.unwrap(), ThreadStatus::Idle);
    let messages = thread.messages().await.unwrap();
    assert_eq!(messages.last().unwrap().text(), "something forbidden");
}
