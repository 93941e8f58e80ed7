use agentry::prelude::*;
use agentry::tool::ToolArgument;

struct City(String);

impl ToolArgument for City {}

/// The weather.
///
/// # Arguments
/// * `city` - The city.
#[tool]
fn weather(city: City) -> String {
    city.0
}

/// Forecasts.
#[agent(tools(weather))]
struct Forecaster;

fn main() {
    let agent = Forecaster::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("weather in Paris", ());
}
