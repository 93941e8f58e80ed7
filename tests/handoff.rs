//! Handoffs: a team's agents pass the conversation on through `transfer_to_<agent>` tools,
//! for `run` and `stream`, against scripted models.

use std::sync::Arc;

use agentry::agent::{AgentEvent, StopReason};
use agentry::multi::{HandoffInput, Team, TeamBuildError, TeamError, TeamEvent};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use futures::StreamExt;
use serde_json::json;

/// Look up an invoice.
///
/// # Arguments
/// * `id` - The invoice number.
#[tool]
fn invoice(id: u32) -> String {
    format!("invoice {id}: 40 EUR, charged twice")
}

/// The answer a support team gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, StructuredOutput)]
struct Answer {
    /// The reply to the customer.
    reply: String,
}

/// You route customer requests to the right specialist.
#[agent(tools(invoice), output = Answer)]
struct Triage;

/// You fix billing problems.
#[agent(tools(invoice), output = Answer)]
struct Billing;

/// A text agent without tools, context or state.
fn plain(
    model: impl agentry::agent::IntoSharedModel,
    tools: agentry::agent::NoTools,
) -> agentry::agent::AgentBuilder<agentry::agent::NoTools> {
    agentry::agent::AgentBuilder::new(model, tools)
}

fn used(input: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: 1,
        requests: 1,
        ..Usage::default()
    }
}

fn models() -> (Arc<ScriptedModel>, Arc<ScriptedModel>) {
    let triage = Arc::new(ScriptedModel::new([
        Turn::tool_call("invoice", json!({ "id": 7 })).with_usage(used(10)),
        Turn::tool_call("transfer_to_billing", json!({})).with_usage(used(20)),
    ]));
    let billing = Arc::new(ScriptedModel::new([Turn::tool_call(
        "Answer",
        json!({ "reply": "Refunded the double charge." }),
    )
    .with_usage(used(30))]));
    (triage, billing)
}

fn team(
    triage: &Arc<ScriptedModel>,
    billing: &Arc<ScriptedModel>,
    input: HandoffInput,
) -> Team<Answer> {
    Team::builder()
        .agent(
            "triage",
            "Routes requests.",
            Triage::builder(triage.clone()),
        )
        .agent(
            "billing",
            "Fixes invoices and refunds.",
            Billing::builder(billing.clone()),
        )
        .handoff_with("triage", "billing", input)
        .build()
        .unwrap()
}

#[tokio::test]
async fn triage_hands_off_and_the_result_names_who_answered() {
    let (triage, billing) = models();
    let run = team(&triage, &billing, HandoffInput::full())
        .run("I was charged twice for invoice 7.", ())
        .await
        .unwrap();
    triage.assert_complete();
    billing.assert_complete();
    assert_eq!(run.agent, "billing");
    assert_eq!(
        run.output,
        Answer {
            reply: "Refunded the double charge.".into()
        }
    );
    assert_eq!(
        run.handoffs,
        [("triage".to_string(), "billing".to_string())]
    );
    assert_eq!(run.stop_reason, StopReason::FinalAnswer);

    // Triage was offered the transfer tool, described by billing's description.
    let offered = &triage.requests()[0].tools;
    let transfer = offered
        .iter()
        .find(|t| t.name == "transfer_to_billing")
        .expect("triage can transfer to billing");
    assert!(transfer.description.contains("Fixes invoices and refunds."));
    // Billing was not offered a way back (no handoff was declared).
    assert!(
        billing.requests()[0]
            .tools
            .iter()
            .all(|t| !t.name.starts_with("transfer_to"))
    );

    // Billing saw the conversation with its own instructions, triage's lookup and the
    // transfer answered.
    let seen = &billing.requests()[0].messages;
    assert_eq!(seen[0], Message::system("You fix billing problems."));
    assert_eq!(seen[1], Message::user("I was charged twice for invoice 7."));
    assert!(
        seen.iter()
            .all(|m| m.text() != "You route customer requests to the right specialist.")
    );
    let Some(Message::Tool(transferred)) = seen.last() else {
        panic!("the transfer call is answered: {seen:?}");
    };
    assert_eq!(transferred.name, "transfer_to_billing");
    assert_eq!(
        transferred.content[0].as_text(),
        Some("Transferred to `billing`.")
    );
    assert!(
        seen.iter()
            .any(|m| m.text().contains("charged twice") && matches!(m, Message::Tool(_)))
    );

    // Usage of both agents, per agent and in total.
    assert_eq!(run.usage.requests, 3);
    assert_eq!(run.usage.input_tokens, 60);
    let by_agent = run.usage_by_agent();
    assert_eq!(by_agent[&Some("triage")].input_tokens, 30);
    assert_eq!(by_agent[&Some("billing")].input_tokens, 30);
}

#[tokio::test]
async fn an_input_filter_decides_what_the_next_agent_sees() {
    let (triage, billing) = models();
    team(&triage, &billing, HandoffInput::without_tools())
        .run("I was charged twice for invoice 7.", ())
        .await
        .unwrap();
    let seen = &billing.requests()[0].messages;
    assert_eq!(
        seen,
        &[
            Message::system("You fix billing problems."),
            Message::user("I was charged twice for invoice 7.")
        ]
    );

    let (triage, billing) = models();
    let history = vec![
        Message::user("Hello"),
        Message::assistant("Hi, how can I help?"),
        Message::user("I was charged twice for invoice 7."),
    ];
    team(&triage, &billing, HandoffInput::last_user_message())
        .run(agentry::agent::Input::from_messages(history), ())
        .await
        .unwrap();
    assert_eq!(
        billing.requests()[0].messages[1..],
        [Message::user("I was charged twice for invoice 7.")]
    );
}

#[tokio::test]
async fn a_streamed_team_run_reports_each_agent_and_the_handoff() {
    let (triage, billing) = models();
    let team = team(&triage, &billing, HandoffInput::full());
    let mut stream = team.stream("I was charged twice for invoice 7.", ());
    let mut seen = Vec::new();
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            TeamEvent::Agent { agent, event } => match event {
                AgentEvent::TurnStart { turn } => seen.push(format!("{agent}: turn {turn}")),
                AgentEvent::ToolResult(step) => {
                    seen.push(format!("{agent}: tool {}", step.call.name))
                }
                _ => {}
            },
            TeamEvent::Handoff { from, to } => seen.push(format!("{from} -> {to}")),
            TeamEvent::Done { agent, .. } => done = Some(agent),
            _ => {}
        }
    }
    assert_eq!(
        seen,
        [
            "triage: turn 1",
            "triage: tool invoice",
            "triage: turn 2",
            "triage -> billing",
            "billing: turn 1",
        ]
    );
    assert_eq!(
        done.as_deref(),
        Some("billing"),
        "the stream ends with Done"
    );
    let result = stream.result().await.unwrap();
    assert_eq!(result.agent, "billing");
    assert_eq!(result.output.reply, "Refunded the double charge.");
    assert_eq!(result.usage.requests, 3);
}

// Members with different output types, mapped into an enum.

/// A refund decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, StructuredOutput)]
struct Refund {
    /// Euros refunded.
    amount_eur: u32,
}

/// You decide refunds.
#[agent(tools(), output = Refund)]
struct Refunds;

/// What the support team produced.
#[derive(Debug, PartialEq)]
enum Outcome {
    Answered(Answer),
    Refunded(Refund),
}

#[tokio::test]
async fn members_with_other_outputs_answer_through_an_enum() {
    let triage = Arc::new(ScriptedModel::new([Turn::tool_call(
        "transfer_to_refunds",
        json!({}),
    )]));
    let refunds = Arc::new(ScriptedModel::new([Turn::tool_call(
        "Refund",
        json!({ "amount_eur": 40 }),
    )]));
    let team = Team::<Outcome>::builder()
        .agent_with(
            "triage",
            "Routes.",
            Triage::builder(triage.clone()),
            Outcome::Answered,
        )
        .agent_with(
            "refunds",
            "Refunds.",
            Refunds::builder(refunds.clone()),
            Outcome::Refunded,
        )
        .handoff("triage", "refunds")
        .build()
        .unwrap();
    let run = team.run("Refund me", ()).await.unwrap();
    assert_eq!(run.agent, "refunds");
    assert_eq!(run.output, Outcome::Refunded(Refund { amount_eur: 40 }));
}

#[tokio::test]
async fn handing_back_and_forth_stops_at_the_cap() {
    let a = Arc::new(ScriptedModel::new(
        (0..3).map(|_| Turn::tool_call("transfer_to_b", json!({}))),
    ));
    let b = Arc::new(ScriptedModel::new(
        (0..3).map(|_| Turn::tool_call("transfer_to_a", json!({}))),
    ));
    let team = Team::<String>::builder()
        .agent("a", "A.", plain(a.clone(), agentry::agent::NoTools))
        .agent("b", "B.", plain(b.clone(), agentry::agent::NoTools))
        .handoff("a", "b")
        .handoff("b", "a")
        .max_handoffs(3)
        .build()
        .unwrap();
    let error = team.run("go", ()).await.unwrap_err();
    match error {
        TeamError::TooManyHandoffs { max, path } => {
            assert_eq!(max, 3);
            assert_eq!(path, "a → b → a → b → a");
        }
        other => panic!("expected the handoff cap, got {other}"),
    }
}

#[tokio::test]
async fn a_member_failure_names_the_member() {
    let a = Arc::new(ScriptedModel::new([Turn::tool_call(
        "transfer_to_b",
        json!({}),
    )]));
    let b = Arc::new(ScriptedModel::new([Turn::error(
        agentry::model::ModelError::Incomplete("cut off".into()),
    )]));
    let team = Team::<String>::builder()
        .agent("a", "A.", plain(a, agentry::agent::NoTools))
        .agent("b", "B.", plain(b, agentry::agent::NoTools))
        .handoff("a", "b")
        .build()
        .unwrap();
    let error = team.run("go", ()).await.unwrap_err();
    assert!(
        matches!(&error, TeamError::Agent { agent, .. } if agent == "b"),
        "{error}"
    );
}

#[test]
fn a_team_with_unknown_or_repeated_names_is_refused() {
    let model = || ScriptedModel::new([Turn::text("hi")]);
    let builder = |m: ScriptedModel| plain(m, agentry::agent::NoTools);
    let unknown = Team::<String>::builder()
        .agent("a", "A.", builder(model()))
        .handoff("a", "b")
        .build()
        .err();
    assert!(
        matches!(unknown, Some(TeamBuildError::UnknownAgent { ref unknown, .. }) if unknown == "b")
    );
    let repeated = Team::<String>::builder()
        .agent("a", "A.", builder(model()))
        .agent("a", "A again.", builder(model()))
        .build()
        .err();
    assert_eq!(repeated, Some(TeamBuildError::Duplicate("a".into())));
    let bad = Team::<String>::builder()
        .agent("billing desk", "A.", builder(model()))
        .build()
        .err();
    assert_eq!(bad, Some(TeamBuildError::BadName("billing desk".into())));
    assert_eq!(
        Team::<String>::builder().build().err(),
        Some(TeamBuildError::Empty)
    );
}
