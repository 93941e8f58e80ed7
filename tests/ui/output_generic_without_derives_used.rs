use agentry::prelude::*;

/// A wrapped value.
#[derive(StructuredOutput)]
struct Wrapped<T> {
    /// The value.
    value: T,
}

/// Wraps.
#[agent(tools(), output = Wrapped<u32>)]
struct Wrapper;

fn main() {
    let agent = Wrapper::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("wrap 7", ());
}
