use agentry::prelude::*;

/// Search the web.
///
/// # Arguments
/// * `query` - What to look for.
#[tool]
fn search(query: String) -> String {
    query
}

/// The answer.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
#[output(name = "search")]
struct Answer {
    text: String,
}

/// A planner.
#[agent(tools(search), output = Answer)]
struct Planner;

fn main() {}
