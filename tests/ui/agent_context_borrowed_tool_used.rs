use agentry::prelude::*;

/// Say which region we are in.
#[tool]
fn region(name: Context<&str>) -> String {
    name.to_string()
}

/// You know the region.
#[agent(tools(region), context = &str)]
struct Locator;

fn main() {
    let region_name = String::from("eu-west");
    let agent = Locator::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("where are we?", region_name.as_str());
}
