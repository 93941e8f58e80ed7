//! A `pub` agent whose tools are private compiles without warnings.
#![deny(warnings)]

use agentry::prelude::*;

/// Search the web.
///
/// # Arguments
/// * `query` - What to look for.
#[tool]
fn search(query: String) -> String {
    query
}

/// Count words.
///
/// # Arguments
/// * `text` - The text.
#[tool]
async fn count(text: String) -> usize {
    text.split_whitespace().count()
}

/// Researches.
#[agent(tools(search, count))]
pub struct Researcher;

fn main() {
    let agent = Researcher::builder(agentry::testing::TestModel::new()).build();
    drop(agent.run("find rust", ()));
}
