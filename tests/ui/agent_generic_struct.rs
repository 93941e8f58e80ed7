use agentry::prelude::*;

/// A planner.
#[agent(tools())]
struct Planner<T> {
    inner: T,
}

fn main() {}
