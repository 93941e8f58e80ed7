use agentry::prelude::*;

/// Search the web.
///
/// # Arguments
/// * `query` - What to look for.
#[tool]
fn search(query: String) -> String {
    query
}

/// Researches.
#[agent(tools(serach))]
struct Researcher;

fn main() {
    let agent = Researcher::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("find rust", ());
}
