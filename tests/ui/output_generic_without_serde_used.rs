use agentry::prelude::*;

/// A page of results.
#[derive(JsonSchema, StructuredOutput)]
struct Page<T> {
    /// The results.
    items: Vec<T>,
}

/// Searches.
#[agent(tools(), output = Page<String>)]
struct Searcher;

fn main() {
    let agent = Searcher::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("find Lisbon", ());
}
