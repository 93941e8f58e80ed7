use agentry::prelude::*;

/// A rating.
#[derive(Deserialize, Serialize, JsonSchema, StructuredOutput)]
struct Rating {
    /// The score.
    #[output(range(min = 0, maximum = 10))]
    score: u32,
}

/// Rates.
#[agent(tools(), output = Rating)]
struct Critic;

fn main() {
    let agent = Critic::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("rate Alien", ());
}
