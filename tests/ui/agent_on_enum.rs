use agent_sdk::agent;

/// Not an agent.
#[agent(tools())]
enum Planner {
    A,
}

fn main() {}
