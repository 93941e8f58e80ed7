use agentry::prelude::*;

/// Plans.
#[agent(tools(), instructions = |_| "Be brief.".to_string())]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("plan", ());
}
