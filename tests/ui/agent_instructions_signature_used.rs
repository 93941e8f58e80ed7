use agentry::prelude::*;

struct User;

fn prompt(user: &User) -> String {
    let _ = user;
    "Be brief.".into()
}

/// A planner.
#[agent(tools(), context = User, instructions = prompt)]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("plan", User);
}
