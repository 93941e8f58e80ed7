use agentry::prelude::*;
use agentry::schemars::{Schema, SchemaGenerator, json_schema};

fn search_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "properties": { "query": { "type": "string" }, "limit": { "type": "integer" } },
        "required": ["query", "limit"]
    })
}

/// Search the catalog.
#[tool(schema = search_schema)]
fn search(
    #[arg(description = "What to look for.")] query: String,
    /// At most this many results.
    limit: u32,
) -> String {
    format!("{limit} {query}")
}

/// Searches.
#[agent(tools(search))]
struct Searcher;

fn main() {
    let agent = Searcher::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("lamps", ());
}
