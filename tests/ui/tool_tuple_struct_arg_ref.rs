use agent_sdk::prelude::*;

/// Do something.
#[tool]
fn first(pair: (String, &str)) -> String {
    pair.0
}

fn main() {}
