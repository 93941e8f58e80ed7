use agentry::prelude::*;

/// You answer.
#[agent(tools(), middleware(agentry::middleware::ModelRetry::new))]
struct Helper;

fn main() {
    let agent = Helper::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("Hi", ());
}
