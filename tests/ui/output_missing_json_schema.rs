use agent_sdk::prelude::Deserialize;
use agent_sdk::StructuredOutput;

/// A film.
#[derive(Deserialize, StructuredOutput)]
struct Movie {
    title: String,
}

fn main() {}
