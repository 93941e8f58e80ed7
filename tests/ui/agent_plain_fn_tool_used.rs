use agentry::prelude::*;

/// Look a word up.
fn lookup(word: String) -> String {
    word
}

/// A dictionary.
#[agent(tools(lookup))]
struct Dictionary;

fn main() {
    let _ = lookup(String::new());
    let agent = Dictionary::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("define cat", ());
}
