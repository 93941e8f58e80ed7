use agent_sdk::prelude::JsonSchema;
use agent_sdk::StructuredOutput;

/// A film.
#[derive(JsonSchema, StructuredOutput)]
struct Movie {
    title: String,
}

fn main() {}
