use agentry::prelude::*;

struct User;

/// Chats.
#[agent(tools(), context = "User")]
struct Chatter;

fn main() {
    let _ = User;
    let agent = Chatter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("hi", User);
}
