use agentry::prelude::*;

/// A planner.
#[agent(tools(), middleware = Audit)]
struct Planner;

fn main() {}
