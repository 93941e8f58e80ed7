use agentry::prelude::*;

/// Fetch a page.
#[tool(timeout = std::time::Duration::from_secs(5))]
async fn fetch_page(url: String) -> String {
    url
}

/// Fetches.
#[agent(tools(fetch_page))]
struct Fetcher;

fn main() {
    let agent = Fetcher::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("fetch", ());
}
