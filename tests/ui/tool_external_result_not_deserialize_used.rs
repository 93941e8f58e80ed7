use agentry::prelude::*;

#[derive(Debug, Serialize)]
struct Location {
    lat: f64,
    lon: f64,
}

/// The user's location, from their browser.
///
/// # Arguments
/// * `precise` - Street-level rather than city-level.
#[tool(external)]
fn get_location(precise: bool) -> Location;

/// You answer with the user's location.
#[agent(tools(get_location))]
struct Helper;

fn main() {
    let agent = Helper::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run_or_pause("Where am I?", ());
}
