use agentry::prelude::*;

/// A planner.
#[agent(tools(), max_turns = 2.5)]
struct Planner;

fn main() {}
