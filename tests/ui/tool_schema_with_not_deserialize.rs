use agentry::prelude::*;
use agentry::schemars::{Schema, SchemaGenerator, json_schema};

// No `Deserialize`: a schema override does not make the model's JSON parse.
struct Timeout(String);

fn timeout_schema(_: &mut SchemaGenerator) -> Schema {
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
    let agent = Waiter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("wait", ());
}
