use agentry::prelude::*;

struct Db;

/// Count users.
#[tool]
fn count_users(db: Db) -> u32 {
    let _ = db;
    0
}

/// Counts.
#[agent(tools(count_users))]
struct Counter;

fn main() {
    let agent = Counter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("how many?", ());
}
