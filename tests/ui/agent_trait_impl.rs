use agentry::prelude::*;

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
