use agentry::prelude::*;
use agentry::schemars::SchemaGenerator;

#[derive(Deserialize)]
struct Timeout(String);

// Returns a `serde_json::Value` instead of a `schemars::Schema`.
fn timeout_schema(_: &mut SchemaGenerator) -> serde_json::Value {
    serde_json::json!({ "type": "string" })
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
