use agentry::prelude::*;

/// The user's location, from their browser.
#[tool]
fn get_location(precise: bool) -> String;

/// A helper.
#[agent(tools(get_location))]
struct Helper;

fn main() {}
