use agentry::agent;

struct User;

fn prompt(user: &User) -> String {
    let _ = user;
    String::new()
}

/// A planner.
#[agent(tools(), context = User, instructions = prompt)]
struct Planner;

fn main() {}
