use agentry::prelude::*;

struct App;

/// The user's location, from their browser.
#[tool(external)]
fn get_location(precise: bool, app: Context<App>) -> String;

/// A helper.
#[agent(tools(get_location), context = App)]
struct Helper;

fn main() {}
