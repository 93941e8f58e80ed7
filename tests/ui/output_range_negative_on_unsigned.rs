use agentry::prelude::*;

/// A stock count.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Stock {
    #[output(range(min = -1, max = 100))]
    count: u32,
}

/// Counts stock.
#[agent(tools(), output = Stock)]
struct Counter;

fn main() {
    let agent = Counter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("count", ());
}
