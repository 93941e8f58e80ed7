use agentry::prelude::*;

/// A score.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Score {
    #[output(range(min = 0.5))]
    points: i32,
}

/// Scores.
#[agent(tools(), output = Score)]
struct Scorer;

fn main() {
    let agent = Scorer::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("score", ());
}
