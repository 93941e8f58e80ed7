use agentry::agent;

/// A planner.
#[agent(tools(), max_turns = 3, max_turns = 5)]
struct Planner;

fn main() {}
