use agentry::prelude::*;

/// Search the web.
///
/// # Arguments
/// * `query` - What to look for.
#[tool]
fn search(query: String) -> String {
    query
}

/// A planner.
#[agent(tools(search), review(search))]
struct Planner;

fn main() {}
