use agentry::prelude::*;

/// You answer.
#[agent(tools())]
struct Helper;

async fn ask() {
    // `instructions` takes text; a function of the context is `dynamic_instructions`.
    let agent = Helper::builder(agentry::testing::TestModel::new())
        .instructions(|| "Be brief.".to_string())
        .build();
    let _ = agent.run("hi", ()).await;
}

fn main() {
    let _ = ask();
}
