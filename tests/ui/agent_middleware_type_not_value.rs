use agentry::middleware::ModelRetry;
use agentry::prelude::*;

/// A planner.
#[agent(tools(), middleware(ModelRetry))]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("plan", ());
}
