use agentry::prelude::*;

/// Search the web.
///
/// # Arguments
/// * `query` - What to look for.
#[tool]
fn search(query: String) -> String {
    query
}

/// Look a word up.
fn lookup(word: String) -> String {
    word
}

/// A planner.
#[agent(tools(search, lookup))]
struct Planner;

fn main() {
    let _ = lookup(String::new());
}
