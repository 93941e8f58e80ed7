use agentry::prelude::*;

/// You check facts.
#[agent(tools(), as_tool(description = ""))]
struct FactChecker;

/// You write, asking the fact checker.
#[agent(tools(FactChecker))]
struct Writer;

fn main() {
    let agent = Writer::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("write about Rust", ());
}
