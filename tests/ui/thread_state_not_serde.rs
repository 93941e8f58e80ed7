use agentry::agent::{AgentBuilder, NoTools};
use agentry::persist::InMemoryCheckpointer;
use agentry::testing::{ScriptedModel, Turn};

/// The agent's state, without serde derives.
#[derive(Default)]
struct Cart {
    items: Vec<String>,
}

#[tokio::main]
async fn main() {
    let agent = AgentBuilder::<_, _, (), Cart>::new(ScriptedModel::new([Turn::text("ok")]), NoTools)
        .checkpointer(InMemoryCheckpointer::default())
        .build();
    let thread = agent.thread("user-7");
    let run = thread.run("Add milk", ()).await.unwrap();
    println!("{} {}", run.output, run.state.items.len());
}
