use agentry::prelude::*;

/// Echoes the call id.
#[tool]
fn echo_id(first: ToolCallId, second: ToolCallId) -> String {
    format!("{first:?}{second:?}")
}

/// Echoes.
#[agent(tools(echo_id))]
struct Echo;

fn main() {
    let agent = Echo::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("id?", ());
}
