use agentry::prelude::*;

struct Query {
    topic: String,
}

/// Researches.
#[agent(tools(), as_tool(input = Query))]
struct Researcher;

/// Plans.
#[agent(tools(Researcher))]
struct Planner;

fn main() {
    let _ = Query { topic: String::new() }.topic;
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("plan", ());
}
