use agentry::prelude::*;

/// You answer.
#[agent(tools())]
struct Answerer;

#[tokio::main]
async fn main() {
    let agent = Answerer::builder(agentry::testing::TestModel::new())
        .checkpointer("threads.db")
        .build();
    let run = agent.run("Hi", ()).await.unwrap();
    println!("{}", run.output);
}
