use agentry::prelude::*;
use agentry::schemars::{Schema, SchemaGenerator, json_schema};

fn search_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "properties": { "query": { "type": "string" } },
        "required": ["query"]
    })
}

fn query_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "minLength": 1 })
}

/// Search the catalog.
#[tool(schema = search_schema)]
fn search(#[arg(schema_with = query_schema)] query: String) -> String {
    query
}

/// Searches.
#[agent(tools(search))]
struct Searcher;

fn main() {
    let agent = Searcher::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("lamps", ());
}
