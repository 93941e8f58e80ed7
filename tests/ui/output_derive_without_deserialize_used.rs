use agentry::prelude::*;

/// A rating.
#[derive(JsonSchema, StructuredOutput)]
struct Rating {
    /// The score.
    score: u32,
}

/// Rates.
#[agent(tools(), output = Rating)]
struct Critic;

fn main() {
    let agent = Critic::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("rate Alien", ());
}
