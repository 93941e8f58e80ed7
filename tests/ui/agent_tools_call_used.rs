use agentry::prelude::*;

/// The time now.
#[tool]
fn get_time() -> String {
    "12:00".into()
}

/// You tell the time.
#[agent(tools(get_time()))]
struct Clock;

fn main() {
    let agent = Clock::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("What time is it?", ());
}
