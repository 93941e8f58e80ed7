use agentry::prelude::*;

/// Answers.
#[agent(tools(), protocol = json_mode)]
struct Answerer;

fn main() {}
