use agentry::prelude::*;

/// You research topics.
#[agent(tools(), as_tool = "Finds facts.")]
struct Researcher;

/// You write: ask the researcher.
#[agent(tools(Researcher))]
struct Writer;

#[tokio::main]
async fn main() {
    let agent = Writer::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Rust", ()).await.unwrap();
    println!("{}", run.output);
}
