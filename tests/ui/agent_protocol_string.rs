use agentry::prelude::*;

/// A planner.
#[agent(tools(), protocol = "react")]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("plan", ());
}
