use agentry::agent;

/// A planner.
#[agent(max_turns = 3)]
struct Planner;

fn main() {}
