use agentry::prelude::*;

/// You pick a function.
#[agent(tools(), output = fn() -> String)]
struct Picker;

#[tokio::main]
async fn main() {
    let agent = Picker::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Pick one", ()).await.unwrap();
    println!("{}", (run.output)());
}
