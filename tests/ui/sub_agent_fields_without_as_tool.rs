use agentry::prelude::*;

/// Researches.
#[agent(tools())]
#[derive(Clone, Default)]
struct Researcher {
    depth: u32,
}

/// Plans.
#[agent(tools(Researcher))]
struct Planner;

fn main() {
    let r = Researcher { depth: 2 };
    let _ = r.depth;
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("plan", ());
}
