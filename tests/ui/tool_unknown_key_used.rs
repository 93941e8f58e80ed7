use agentry::prelude::*;

/// Look up the weather.
#[tool(descripton = "The weather in a city.")]
fn get_weather(city: String) -> String {
    city
}

/// Knows the weather.
#[agent(tools(get_weather))]
struct Forecaster;

fn main() {
    let agent = Forecaster::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("weather in Oslo?", ());
}
