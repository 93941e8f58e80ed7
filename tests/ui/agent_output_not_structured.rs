use agentry::agent;

struct Plan {
    days: u32,
}

/// A planner.
#[agent(tools(), output = Plan)]
struct Planner;

fn main() {
    let _ = Plan { days: 1 }.days;
}
