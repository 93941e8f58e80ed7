use agentry::prelude::*;

/// Look up a word.
#[tool]
fn define(#[arg(desc = "The word.")] word: String) -> String {
    word
}

/// A dictionary.
#[agent(tools(define))]
struct Dictionary;

fn main() {
    let agent = Dictionary::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("define cat", ());
}
