use agentry::prelude::*;

/// You answer.
#[agent(tools())]
struct Answerer;

#[tokio::main]
async fn main() {
    let agent = Answerer::builder("openai:gpt-4o-mini").build();
    let run = agent.run("Hi", ()).await.unwrap();
    println!("{}", run.output);
}
