//! A generic structured output with a where clause and a name of its own, as an agent's output.

use agentry::prelude::*;

/// A page of results.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
#[output(name = "page")]
struct Page<T>
where
    T: Clone,
{
    /// The results.
    items: Vec<T>,
}

/// Searches.
#[agent(tools(), output = Page<String>)]
struct Searcher;

fn main() {
    let agent = Searcher::builder(agentry::testing::TestModel::new()).build();
    drop(agent.run("find Lisbon", ()));
    let _ = Page::<String> { items: vec![] }.items.first().cloned();
}
