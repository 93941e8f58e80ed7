use agentry::prelude::*;

struct NoCode;

/// Plans.
#[agent(tools(), guardrails(input(NoCode)))]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("plan", ());
}
