use agentry::prelude::*;

/// Look up a word.
#[tool]
fn define(word: String) -> String {
    word
}

/// Spell a word.
#[tool]
fn spell(word: String) -> String {
    word
}

/// A dictionary.
#[agent(tools(define,, spell))]
struct Dictionary;

fn main() {
    let agent = Dictionary::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("define cat", ());
}
