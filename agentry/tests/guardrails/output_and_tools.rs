//! Output guardrails on a typed output, and tool guardrails before a call runs and before the
//! model sees its result.

use super::*;

/// A plan, checked before it is returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, StructuredOutput)]
struct Plan {
    /// Days.
    days: u32,
    /// Budget in euros.
    budget: u32,
}

/// Caps the budget (a rewrite) and refuses plans longer than a week (a block).
struct Sensible;

impl<C: Sync> OutputGuardrail<Plan, C> for Sensible {
    type Reason = String;

    fn name(&self) -> &str {
        "sensible"
    }

    async fn check(&self, plan: &Plan, _: &C) -> Verdict<Plan, String> {
        if plan.days > 7 {
            Verdict::Block(format!("{} days is too long", plan.days))
        } else if plan.budget > 1000 {
            Verdict::Rewrite(Plan {
                budget: 1000,
                ..plan.clone()
            })
        } else {
            Verdict::Pass
        }
    }
}

#[agent(tools(), output = Plan, guardrails(output(Sensible)))]
struct Planner;

#[tokio::test]
async fn an_output_guardrail_passes_rewrites_and_blocks_the_typed_output() {
    let answer =
        |days: u32, budget: u32| Turn::tool_call("Plan", json!({"days": days, "budget": budget}));
    let agent = Planner::builder(ScriptedModel::new([answer(3, 500)])).build();
    assert_eq!(
        agent.run("plan", ()).await.unwrap().output,
        Plan {
            days: 3,
            budget: 500
        }
    );

    let agent = Planner::builder(ScriptedModel::new([answer(3, 5000)])).build();
    assert_eq!(
        agent.run("plan", ()).await.unwrap().output,
        Plan {
            days: 3,
            budget: 1000
        }
    );

    let agent = Planner::builder(ScriptedModel::new([answer(30, 500)])).build();
    let error = agent.run("plan", ()).await.unwrap_err();
    let RunErrorKind::Guardrail { name, reason } = error.kind() else {
        panic!("{error}")
    };
    assert_eq!(
        (name.as_str(), reason.to_string().as_str()),
        ("sensible", "30 days is too long")
    );
    // The answer is in the partial run.
    assert_eq!(error.partial().usage.requests, 1);
}

/// Only lets `lookup` run with a `who` of "me", and rewrites "you" to "me".
struct OnlyMe;

impl<C: Sync> ToolInputGuardrail<C> for OnlyMe {
    type Reason = String;

    fn name(&self) -> &str {
        "only_me"
    }

    async fn check(&self, call: &ToolCall, _: &C) -> Verdict<String, String> {
        let args: serde_json::Value = serde_json::from_str(&call.arguments).unwrap_or_default();
        match args["who"].as_str() {
            Some("me") => Verdict::Pass,
            Some("you") => Verdict::Rewrite(json!({"who": "me"}).to_string()),
            other => Verdict::Block(format!(
                "{} may not be looked up",
                other.unwrap_or("nobody")
            )),
        }
    }
}

/// Look someone up.
///
/// # Arguments
/// * `who` - Whom.
#[tool]
fn whois(who: String, calls: Context<Arc<AtomicUsize>>) -> String {
    calls.fetch_add(1, Ordering::SeqCst);
    format!("looked up {who}")
}

#[agent(tools(whois), context = Arc<AtomicUsize>, guardrails(tool_input(OnlyMe)))]
struct Whois;

#[tokio::test]
async fn a_tool_input_guardrail_blocks_or_rewrites_a_call_before_the_tool_runs() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("whois", json!({"who": "you"})),
        Turn::text("ok"),
    ]));
    let calls = Arc::new(AtomicUsize::new(0));
    let agent = Whois::builder(Arc::clone(&model)).build();
    let run = agent.run("who?", Arc::clone(&calls)).await.unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    // The tool ran with the rewritten arguments.
    assert_eq!(
        run.steps[0].result.as_ref().unwrap().content[0].as_text(),
        Some("looked up me")
    );

    let model = ScriptedModel::new([Turn::tool_call("whois", json!({"who": "the admin"}))]);
    let calls = Arc::new(AtomicUsize::new(0));
    let agent = Whois::builder(model).build();
    let error = agent.run("who?", Arc::clone(&calls)).await.unwrap_err();
    assert_eq!(
        calls.load(Ordering::SeqCst),
        0,
        "a blocked call must not run"
    );
    let RunErrorKind::Guardrail { name, reason } = error.kind() else {
        panic!("{error}")
    };
    assert_eq!(
        (name.as_str(), reason.to_string().as_str()),
        ("only_me", "the admin may not be looked up")
    );
}

/// Hides the word "secret" from the model, and refuses results that mention "classified".
struct Censor;

impl<C: Sync> ToolOutputGuardrail<C> for Censor {
    type Reason = &'static str;

    fn name(&self) -> &str {
        "censor"
    }

    async fn check(
        &self,
        _: &ToolCall,
        output: &ToolOutput,
        _: &C,
    ) -> Verdict<ToolOutput, &'static str> {
        let text = output.content[0].as_text().unwrap_or_default();
        if text.contains("classified") {
            Verdict::Block("classified result")
        } else if text.contains("secret") {
            Verdict::Rewrite(ToolOutput::text(text.replace("secret", "[censored]")))
        } else {
            Verdict::Pass
        }
    }
}

#[tokio::test]
async fn a_tool_output_guardrail_rewrites_or_blocks_a_result_before_the_model_sees_it() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("lookup", json!({})),
        Turn::text("ok"),
    ]));
    let agent = Looker::builder(Arc::clone(&model))
        .tool_output_guardrail(Censor)
        .build();
    let run = agent
        .run("go", Arc::new(AtomicUsize::new(0)))
        .await
        .unwrap();
    let seen = model.requests()[1].messages.last().unwrap().text();
    assert_eq!(seen, "the [censored]");
    assert_eq!(run.output, "ok");

    let model = ScriptedModel::new([Turn::tool_call("whois", json!({"who": "classified"}))]);
    let agent = AgentBuilder::<_, _, Arc<AtomicUsize>, ()>::new(model, Whois)
        .tool_output_guardrail(Censor)
        .build();
    let error = agent
        .run("go", Arc::new(AtomicUsize::new(0)))
        .await
        .unwrap_err();
    assert!(
        matches!(error.kind(), RunErrorKind::Guardrail { name, .. } if name == "censor"),
        "{error}"
    );
    // The tool ran; its result never reached the model (no second request).
    assert_eq!(error.partial().usage.requests, 1);
}
