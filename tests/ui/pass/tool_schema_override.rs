//! Schema overrides compile without a warning: a private tool, a private parameter type
//! without `JsonSchema`, a private override function, and a whole-schema tool.
#![deny(warnings)]

use agentry::prelude::*;
use agentry::schemars::{Schema, SchemaGenerator, json_schema};

#[derive(Deserialize)]
struct Timeout(String);

fn timeout_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "pattern": "^[0-9]+s$" })
}

/// Wait for a job.
#[tool]
fn wait_for(#[arg(schema_with = timeout_schema)] timeout: Timeout) -> String {
    timeout.0
}

fn search_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "properties": { "query": { "type": "string" } },
        "required": ["query"]
    })
}

/// Search the catalog.
#[tool(schema = "search_schema")]
fn search(query: String) -> String {
    query
}

/// Waits and searches.
#[agent(tools(wait_for, search))]
struct Clerk;

mod inner {
    use super::*;

    pub struct Queue;

    #[agent]
    impl Queue {
        /// Pause the queue.
        #[tool]
        fn pause(&self, #[arg(schema_with = super::timeout_schema)] timeout: Timeout) -> String {
            timeout.0
        }
    }
}

fn main() {
    let agent = Clerk::builder(agentry::testing::TestModel::new()).build();
    drop(agent.run("go", ()));
    let _ = inner::Queue.into_builder(agentry::testing::TestModel::new());
}
