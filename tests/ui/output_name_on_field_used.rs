use agentry::prelude::*;

/// A rating.
#[derive(Deserialize, Serialize, JsonSchema, StructuredOutput)]
struct Rating {
    /// The score.
    #[output(name = "points")]
    score: u32,
}

/// Rates.
#[agent(tools(), output = Rating)]
struct Critic;

fn main() {
    let agent = Critic::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("rate Alien", ());
}
