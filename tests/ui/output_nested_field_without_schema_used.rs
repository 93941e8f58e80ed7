use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};

/// A city, without `JsonSchema`.
#[derive(Debug, Deserialize)]
struct City {
    name: String,
}

/// A travel plan.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Plan {
    /// Where to go.
    city: City,
    /// How many days.
    days: u32,
}

/// You plan trips.
#[agent(tools(), output = Plan)]
struct Planner;

#[tokio::main]
async fn main() {
    let model = ScriptedModel::new([Turn::text(r#"{"city": {"name": "Lisbon"}, "days": 3}"#)]);
    let agent = Planner::builder(model).build();
    let run = agent.run("Three days somewhere", ()).await.unwrap();
    println!("{} {}", run.output.city.name, run.output.days);
}
