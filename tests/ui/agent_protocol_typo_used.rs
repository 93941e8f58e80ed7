use agentry::prelude::*;

/// Plans.
#[agent(tools(), protocol = reac)]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("plan", ());
}
