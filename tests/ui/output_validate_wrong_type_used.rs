use agentry::prelude::*;

fn positive(score: &i64) -> Result<(), String> {
    if *score > 0 { Ok(()) } else { Err("must be positive".into()) }
}

/// A film.
#[derive(Deserialize, Serialize, JsonSchema, StructuredOutput)]
struct Film {
    /// Its title.
    #[output(validate = "positive")]
    title: String,
}

/// Names films.
#[agent(tools(), output = Film)]
struct Namer;

fn main() {
    let agent = Namer::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("a film", ());
}
