use agentry::prelude::*;

/// Plans.
#[agent(tools(), guardrails(input("no_code")))]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("plan", ());
}
