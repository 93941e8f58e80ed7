use agentry::prelude::*;

/// A planner.
#[agent(tools())]
fn planner() {}

fn main() {}
