use agentry::prelude::*;

fn short(title: &str) -> Result<(), String> {
    if title.len() < 100 { Ok(()) } else { Err("too long".into()) }
}

/// A film.
#[derive(Deserialize, Serialize, JsonSchema, StructuredOutput)]
struct Film {
    /// Its title.
    #[output(validate = "short")]
    title: String,
}

/// Names films.
#[agent(tools(), output = Film)]
struct Namer;

fn main() {
    let agent = Namer::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("a film", ());
}
