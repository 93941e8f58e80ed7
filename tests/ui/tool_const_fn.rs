use agentry::prelude::*;

/// The answer to everything.
#[tool]
const fn answer() -> u32 {
    42
}

/// Answers.
#[agent(tools(answer))]
struct Oracle;

fn main() {
    let agent = Oracle::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("what is the answer?", ());
}
