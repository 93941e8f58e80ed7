use agent_sdk::prelude::*;

/// Do something.
#[tool]
fn push(list: &mut Vec<String>) -> String {
    list.join(",")
}

fn main() {}
