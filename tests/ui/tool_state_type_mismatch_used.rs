use agentry::prelude::*;

/// Count calls.
#[tool]
fn bump(counter: State<u32>) -> String {
    counter.update(|n| *n += 1);
    "bumped".into()
}

/// Counts.
#[agent(tools(bump), state = u64)]
struct Counter;

fn main() {
    let agent = Counter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("bump", ());
}
