use agentry::agent;

/// A planner.
#[agent(tools(), instructions = 42, max_turns = -1)]
struct Planner;

fn main() {}
