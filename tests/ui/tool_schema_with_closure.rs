use agentry::prelude::*;
use agentry::schemars::{SchemaGenerator, json_schema};

#[derive(Deserialize)]
struct Timeout(String);

/// Wait for a job.
#[tool]
fn wait_for(
    #[arg(schema_with = |_: &mut SchemaGenerator| json_schema!({ "type": "string" }))]
    timeout: Timeout,
) -> String {
    timeout.0
}

/// Waits.
#[agent(tools(wait_for))]
struct Waiter;

fn main() {
    let agent = Waiter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("wait", ());
}
