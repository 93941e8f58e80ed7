use agentry::prelude::*;

/// A planner.
#[agent(tools(), middleware(42))]
struct Planner;

fn main() {}
