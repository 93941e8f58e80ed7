use agentry::prelude::*;

/// You research topics.
#[agent(tools(), as_tool(description("Researches a topic.")))]
struct Researcher;

/// You write reports.
#[agent(tools(Researcher))]
struct Writer;

fn main() {
    let agent = Writer::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("A report on Rust", ());
}
