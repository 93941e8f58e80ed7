use agent_sdk::tool;

/// Not a function.
#[tool]
struct Weather;

fn main() {}
