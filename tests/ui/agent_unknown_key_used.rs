use agentry::prelude::*;

/// A planner.
#[agent(tools(), max_turn = 3)]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("plan", ());
}
