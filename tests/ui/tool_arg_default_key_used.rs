use agentry::prelude::*;

/// The weather in a city.
///
/// # Arguments
/// * `city` - The city.
/// * `unit` - The unit.
#[tool]
async fn weather(city: String, #[arg(default = "celsius")] unit: String) -> String {
    format!("20 {unit} in {city}")
}

/// You report the weather.
#[agent(tools(weather))]
struct Reporter;

fn main() {
    let agent = Reporter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("Weather in Oslo?", ());
}
