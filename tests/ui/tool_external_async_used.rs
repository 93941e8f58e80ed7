use agentry::prelude::*;

/// Ask the browser for the user's time zone.
///
/// # Arguments
/// * `detailed` - Include the offset.
#[tool(external)]
async fn time_zone(detailed: bool) -> String;

/// You tell people their time zone.
#[agent(tools(time_zone))]
struct Clock;

fn main() {
    let agent = Clock::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("what is my time zone?", ());
}
