use agentry::prelude::*;

/// Chats.
#[agent(tools(), instructions = 42)]
struct Chatter;

fn main() {
    let agent = Chatter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("hi", ());
}
