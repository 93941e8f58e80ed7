use agentry::prelude::*;

/// The user's location, from their browser.
#[tool(external)]
fn get_location(precise: bool) -> String {
    format!("{precise}")
}

/// A helper.
#[agent(tools(get_location))]
struct Helper;

fn main() {}
