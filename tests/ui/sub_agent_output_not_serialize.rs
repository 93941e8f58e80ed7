use agentry::prelude::*;

/// What the researcher found.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Notes {
    /// The facts.
    facts: Vec<String>,
}

/// Finds facts.
#[agent(tools(), output = Notes)]
struct Researcher;

/// Delegates research.
#[agent(tools(Researcher))]
struct Planner;

fn main() {}
