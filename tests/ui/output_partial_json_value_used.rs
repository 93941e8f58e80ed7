use agentry::prelude::*;

/// A weather report.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Report {
    /// The city.
    city: String,
    /// Raw provider data.
    #[output(partial_json = 1)]
    raw: serde_json::Value,
}

/// You report the weather.
#[agent(tools(), output = Report)]
struct Reporter;

fn main() {
    let agent = Reporter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("Weather in Oslo", ());
}
