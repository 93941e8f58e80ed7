use agentry::prelude::*;

/// Add one.
///
/// # Arguments
/// * `n` - The number.
#[tool(inline, timeout = "1s")]
fn inc(n: u32) -> u32 {
    n + 1
}

/// Counts.
#[agent(tools(inc))]
struct Counter;

fn main() {
    let agent = Counter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("1 + 1", ());
}
