use agentry::prelude::*;

/// Remember a fact.
///
/// # Arguments
/// * `fact` - The fact.
#[tool]
async fn remember(fact: String, store: Store, again: Store) -> String {
    let _ = (store, again);
    fact
}

/// Remembers.
#[agent(tools(remember))]
struct Memory;

fn main() {
    let agent = Memory::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("remember", ());
}
