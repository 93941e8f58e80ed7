//! The agent most benches run: `Adder`, whose one tool `add` is an `async fn`, so a run is
//! model → one `add` call → model. Included with `#[path]` by the benches that use it.

use agentry::prelude::*;

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool]
pub async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// You add numbers with the `add` tool.
#[agent(tools(add))]
pub struct Adder;
