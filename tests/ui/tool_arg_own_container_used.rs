use agentry::prelude::*;

// A list type of the program's own, named like the standard one, with neither derive.
mod route {
    pub struct Vec<T>(pub std::vec::Vec<T>);
}

#[derive(Deserialize, JsonSchema)]
struct Stop {
    city: String,
}

/// Plan a route.
///
/// # Arguments
/// * `stops` - The cities, in order.
#[tool]
fn plan(stops: route::Vec<Stop>) -> String {
    stops.0.iter().map(|s| s.city.as_str()).collect::<Vec<_>>().join(" → ")
}

/// Plans routes.
#[agent(tools(plan))]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("Lisbon to Porto", ());
}
