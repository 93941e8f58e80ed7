use agentry::prelude::*;

/// A film.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Movie {
    /// The title, between one and ten characters (wrongly written as a range).
    #[output(range(min = 1, max = 10))]
    title: Option<String>,
}

/// Recommends a film.
#[agent(tools(), output = Movie)]
struct Critic;

fn main() {
    let agent = Critic::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("a film", ());
}
