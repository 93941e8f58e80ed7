use agent_sdk::agent::{AgentBuilder, NoTools};
use agent_sdk::persist::InMemoryCheckpointer;
use agent_sdk::testing::{ScriptedModel, Turn};

/// The agent's state, without serde derives.
#[derive(Default)]
struct Cart {
    items: Vec<String>,
}

fn main() {
    let agent = AgentBuilder::<_, _, (), Cart>::new(ScriptedModel::new([Turn::text("ok")]), NoTools)
        .checkpointer(InMemoryCheckpointer::default())
        .build();
    let _thread = agent.thread("user-7");
}
