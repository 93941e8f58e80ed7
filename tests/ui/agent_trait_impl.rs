use agent_sdk::prelude::*;

struct Planner;

trait Named {
    fn name(&self) -> String;
}

/// A planner.
#[agent]
impl Named for Planner {
    fn name(&self) -> String {
        String::new()
    }
}

fn main() {}
