use agentry::prelude::*;

/// A planner.
#[agent(tools(), output)]
struct Planner;

fn main() {}
