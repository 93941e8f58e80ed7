use agentry::guard::{OutputGuardrail, Verdict};
use agentry::prelude::*;

/// A summary.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Summary {
    /// The text.
    text: String,
}

/// A plan.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Plan {
    /// Days.
    days: u32,
}

/// Written for agents that answer with a `Plan`.
struct ShortPlans;

impl OutputGuardrail<Plan> for ShortPlans {
    type Reason = String;

    fn name(&self) -> &str {
        "short_plans"
    }

    async fn check(&self, plan: &Plan, _: &()) -> Verdict<Plan, String> {
        if plan.days > 7 { Verdict::Block("too long".into()) } else { Verdict::Pass }
    }
}

/// Summarizes.
#[agent(tools(), output = Summary, guardrails(output(ShortPlans)))]
struct Summarizer;

fn main() {
    let model = agentry::testing::ScriptedModel::new([]);
    let _agent = Summarizer::builder(model).build();
}
