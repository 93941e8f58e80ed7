use agentry::prelude::*;

/// You look things up with your API key.
#[agent(tools(), as_tool(description = "Looks things up."))]
#[derive(Clone)]
struct Lookup {
    api_key: String,
}

/// You delegate lookups.
#[agent(tools(Lookup))]
struct Front;

fn main() {
    let _ = Lookup { api_key: String::new() }.api_key;
    let agent = Front::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("look up Rust", ());
}
