use agentry::prelude::*;

/// Researches.
#[agent(tools(), as_tool(name = 5))]
struct Researcher;

/// Plans.
#[agent(tools(Researcher))]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("plan", ());
}
