use agentry::prelude::*;

/// Look up a city.
#[tool]
fn find_city(#[arg(rename = 5)] city: String) -> String {
    city
}

/// Finds cities.
#[agent(tools(find_city))]
struct Finder;

fn main() {
    let agent = Finder::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("where is Oslo?", ());
}
