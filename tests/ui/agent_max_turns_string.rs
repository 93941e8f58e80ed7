use agentry::prelude::*;

/// A planner.
#[agent(tools(), max_turns = "10")]
struct Planner;

fn main() {}
