use agentry::prelude::*;

/// A planner.
#[agent(tools(), guardrails(NoSecrets))]
struct Planner;

struct NoSecrets;

fn main() {
    let _ = NoSecrets;
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("plan", ());
}
