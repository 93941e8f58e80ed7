use agentry::prelude::*;

/// Echo the call id.
#[tool]
fn echo_id(id: &ToolCallId) -> String {
    format!("{id:?}")
}

/// Echoes.
#[agent(tools(echo_id))]
struct Echo;

fn main() {
    let agent = Echo::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("id?", ());
}
