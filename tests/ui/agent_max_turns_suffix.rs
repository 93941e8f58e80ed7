use agentry::prelude::*;

/// A planner.
#[agent(tools(), max_turns = 10u64)]
struct Planner;

fn main() {}
