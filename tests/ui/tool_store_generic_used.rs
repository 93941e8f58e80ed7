use agentry::prelude::*;

/// Remember a note.
#[tool]
async fn remember(note: String, store: Store<String>) -> String {
    let _ = store;
    note
}

/// Remembers.
#[agent(tools(remember))]
struct Memo;

fn main() {
    let agent = Memo::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("remember milk", ());
}
