use agentry::prelude::*;
use agentry::schemars::{Schema, json_schema};

// The whole arguments schema, without the generator parameter.
fn search_schema() -> Schema {
    json_schema!({
        "type": "object",
        "properties": { "query": { "type": "string" } },
        "required": ["query"]
    })
}

/// Search the catalog.
#[tool(schema = search_schema)]
fn search(query: String) -> String {
    query
}

/// Searches.
#[agent(tools(search))]
struct Searcher;

fn main() {
    let agent = Searcher::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("lamps", ());
}
