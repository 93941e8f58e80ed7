use agentry::prelude::*;

/// A planner.
#[agent(tools(), max_turns = 0)]
struct Planner;

fn main() {}
