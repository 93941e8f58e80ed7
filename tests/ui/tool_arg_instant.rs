use agentry::prelude::*;
use std::time::Instant;

/// Seconds since a moment.
///
/// # Arguments
/// * `since` - The moment.
#[tool]
fn elapsed(since: Instant) -> u64 {
    since.elapsed().as_secs()
}

/// Keeps time.
#[agent(tools(elapsed))]
struct Timer;

fn main() {
    let agent = Timer::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("how long?", ());
}
