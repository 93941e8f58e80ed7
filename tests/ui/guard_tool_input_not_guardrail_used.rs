use agentry::prelude::*;

/// Not a guardrail.
struct Shouting;

/// You answer.
#[agent(tools())]
struct Answerer;

#[tokio::main]
async fn main() {
    let agent = Answerer::builder(agentry::testing::TestModel::new())
        .tool_input_guardrail(Shouting)
        .build();
    let run = agent.run("Hi", ()).await.unwrap();
    println!("{}", run.output);
}
