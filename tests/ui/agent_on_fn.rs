use agent_sdk::prelude::*;

/// A planner.
#[agent(tools())]
fn planner() {}

fn main() {}
