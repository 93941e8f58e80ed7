use agentry::prelude::*;

/// Ends the run.
#[tool(return_direct = "yes")]
fn finish(answer: String) -> String {
    answer
}

/// Answers.
#[agent(tools(finish))]
struct Answerer;

fn main() {
    let agent = Answerer::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("answer", ());
}
