use agentry::prelude::*;

/// You answer.
#[agent(tools(), model = "gpt-4o-mini")]
struct Answerer;

#[tokio::main]
async fn main() {
    let agent = Answerer::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Hi", ()).await.unwrap();
    println!("{}", run.output);
}
