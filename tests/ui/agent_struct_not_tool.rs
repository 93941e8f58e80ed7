use agentry::prelude::*;

/// Adds numbers.
struct Sum;

/// Does arithmetic.
#[agent(tools(Sum))]
struct Calculator;

fn main() {
    let _ = Sum;
    let agent = Calculator::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("1 + 1", ());
}
