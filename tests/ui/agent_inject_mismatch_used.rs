use agentry::prelude::*;

struct Clock;

/// The time.
#[tool]
fn now(#[inject] clock: Clock) -> String {
    let _ = clock;
    "noon".into()
}

/// Tells the time.
#[agent(tools(now))]
struct Teller;

fn main() {
    let agent = Teller::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("time?", ());
}
