use agentry::prelude::*;

#[agent(tools(), description = "Answers questions.")]
struct Answerer;

#[tokio::main]
async fn main() {
    let agent = Answerer::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Hi", ()).await.unwrap();
    println!("{}", run.output);
}
