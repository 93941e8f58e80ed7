//! A bare `as_tool` is `as_tool()`: a sub-agent with fields offered with the defaults.
#![deny(warnings)]

use agentry::prelude::*;

/// Researches.
#[agent(tools(), as_tool)]
#[derive(Clone, Default)]
struct Researcher {
    depth: u32,
}

/// Plans.
#[agent(tools(Researcher))]
struct Planner;

fn main() {
    let _ = Researcher { depth: 2 }.depth;
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    drop(agent.run("plan", ()));
}
