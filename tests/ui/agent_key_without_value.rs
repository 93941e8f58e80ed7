use agent_sdk::prelude::*;

/// A planner.
#[agent(tools(), output)]
struct Planner;

fn main() {}
