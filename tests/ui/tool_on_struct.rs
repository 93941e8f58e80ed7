use agentry::tool;

/// Not a function.
#[tool]
struct Weather;

fn main() {}
