use agentry::prelude::*;

/// A planner.
#[agent(tools(), max_turns = "5")]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("plan", ());
    let other = Planner::builder(agentry::testing::TestModel::new()).max_turns(2).build();
    let _ = other;
}
