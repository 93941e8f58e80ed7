use agentry::persist::InMemoryCheckpointer;
use agentry::prelude::*;

/// You answer.
#[agent(tools())]
struct Helper;

async fn branch(agent: &HelperAgent) {
    let thread = agent.thread("t-1");
    // The new thread's id is text.
    let fork = thread.fork(2, 7).await.unwrap();
    let _ = fork.messages().await;
}

fn main() {
    let agent = Helper::builder(agentry::testing::TestModel::new())
        .checkpointer(InMemoryCheckpointer::default())
        .build();
    let _ = branch(&agent);
}
