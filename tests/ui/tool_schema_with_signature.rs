use agentry::prelude::*;
use agentry::schemars::{Schema, SchemaGenerator, json_schema};

#[derive(Deserialize)]
struct Timeout(String);

// The generator parameter is missing.
fn timeout_schema() -> Schema {
    json_schema!({ "type": "string" })
}

/// Wait for a job.
#[tool]
fn wait_for(#[arg(schema_with = timeout_schema)] timeout: Timeout) -> String {
    timeout.0
}

/// Waits.
#[agent(tools(wait_for))]
struct Waiter;

fn main() {
    let _ = SchemaGenerator::default();
    let agent = Waiter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("wait", ());
}
