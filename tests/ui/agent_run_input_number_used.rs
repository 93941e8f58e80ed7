use agentry::prelude::*;

/// You answer questions.
#[agent(tools())]
struct Helper;

async fn ask(agent: &HelperAgent) {
    // A run's input is text or messages, not a number.
    let outcome = agent.run_or_pause(42, ()).await.unwrap();
    let _ = outcome;
}

fn main() {
    let agent = Helper::builder(agentry::testing::TestModel::new()).build();
    let _ = ask(&agent);
}
