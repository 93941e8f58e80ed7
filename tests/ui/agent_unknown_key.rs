use agentry::agent;

/// A planner.
#[agent(tools(), max_turn = 3, model = "gpt-4o")]
struct Planner;

fn main() {}
