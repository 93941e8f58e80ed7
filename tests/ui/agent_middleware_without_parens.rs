use agent_sdk::prelude::*;

/// A planner.
#[agent(tools(), middleware = Audit)]
struct Planner;

fn main() {}
