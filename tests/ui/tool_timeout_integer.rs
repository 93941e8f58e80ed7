use agentry::prelude::*;

/// Look something up.
#[tool(timeout = 5)]
fn lookup() -> String {
    String::new()
}

/// Looks things up.
#[agent(tools(lookup))]
struct Finder;

fn main() {
    let agent = Finder::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("find", ());
}
