use agentry::prelude::*;

/// A rating.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Rating {
    #[output(range(min = 0, max = 1000))]
    stars: u8,
}

/// Rates.
#[agent(tools(), output = Rating)]
struct Rater;

fn main() {
    let agent = Rater::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("rate", ());
}
