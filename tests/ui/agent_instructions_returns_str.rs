use agentry::prelude::*;

fn prompt(_: &(), _: &()) -> &'static str {
    "Be brief."
}

/// A planner.
#[agent(tools(), instructions = prompt)]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("plan", ());
}
