use agentry::guard::{InputGuardrail, Verdict};
use agentry::prelude::*;

/// Blocks rude input.
struct NoRudeness;

impl<C: Sync> InputGuardrail<C> for NoRudeness {
    type Reason = String;

    fn name(&self) -> &str {
        "no_rudeness"
    }

    async fn check(&self, message: &str, _context: &C) -> Verdict<String> {
        if message.contains("stupid") {
            Verdict::Block("be polite".into())
        } else {
            Verdict::Pass
        }
    }
}

/// You answer politely.
#[agent(tools(), guardrails(tool_output(NoRudeness)))]
struct Helper;

fn main() {
    let agent = Helper::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("Hi", ());
}
