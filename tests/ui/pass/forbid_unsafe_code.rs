//! A crate that forbids unsafe code can declare agents, tools and outputs: what the macros
//! generate is not the user's unsafe code.
#![forbid(unsafe_code)]
#![deny(warnings)]

use agentry::prelude::*;

/// A verdict.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Verdict {
    /// Whether the claim holds.
    holds: bool,
}

/// Look a word up.
///
/// # Arguments
/// * `word` - The word.
#[tool]
fn lookup(word: String) -> String {
    word
}

/// Checks claims.
#[agent(tools(lookup), output = Verdict)]
struct Checker;

fn main() {
    let agent = Checker::builder(agentry::testing::TestModel::new()).build();
    drop(agent.run("is water wet?", ()));
}
