use agentry::prelude::*;

// `JsonSchema` only: the list's items do not parse.
#[derive(JsonSchema)]
struct Stop {
    city: String,
}

/// Plan a route.
///
/// # Arguments
/// * `stops` - The cities, in order.
#[tool]
fn route(stops: Vec<Stop>) -> String {
    stops.iter().map(|s| s.city.as_str()).collect::<Vec<_>>().join(" → ")
}

/// Plans routes.
#[agent(tools(route))]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("Lisbon to Porto", ());
}
