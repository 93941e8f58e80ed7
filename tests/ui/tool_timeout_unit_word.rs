use agentry::prelude::*;

/// Fetches a page.
#[tool(timeout = "5 seconds")]
async fn fetch(url: String) -> String {
    url
}

/// Browses.
#[agent(tools(fetch))]
struct Browser;

fn main() {
    let agent = Browser::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("open example.com", ());
}
