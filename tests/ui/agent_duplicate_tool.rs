use agentry::{agent, tool};

/// Look up the weather.
///
/// # Arguments
/// * `city` - The city.
#[tool]
fn get_weather(city: String) -> String {
    city
}

/// A planner.
#[agent(tools(get_weather, get_weather))]
struct Planner;

fn main() {
    let _ = Planner::builder(agentry::testing::TestModel::new()).build();
}
