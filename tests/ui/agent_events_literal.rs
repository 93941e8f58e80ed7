use agentry::prelude::*;

/// Chats.
#[agent(tools(), events = 5)]
struct Chatter;

fn main() {
    let agent = Chatter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("hi", ());
}
