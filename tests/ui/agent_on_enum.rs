use agentry::agent;

/// Not an agent.
#[agent(tools())]
enum Planner {
    A,
}

fn main() {}
