use agentry::prelude::*;

/// A plan.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Plan {
    /// The steps.
    steps: Vec<String>,
}

/// You plan.
#[agent(tools(), output = Option<Plan>)]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("Plan a trip", ());
}
