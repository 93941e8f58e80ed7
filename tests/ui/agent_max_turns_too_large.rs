use agentry::prelude::*;

/// A planner.
#[agent(tools(), max_turns = 5000000000)]
struct Planner;

fn main() {}
