use agentry::agent;

struct lookup;

/// A planner.
#[agent(tools(lookup))]
struct Planner;

fn main() {
    let _ = lookup;
}
