use agentry::prelude::*;

/// Fetch a page.
///
/// # Arguments
/// * `url` - The page.
#[tool(retries = 3)]
async fn fetch(url: String) -> String {
    format!("fetched {url}")
}

/// You read pages.
#[agent(tools(fetch))]
struct Reader;

#[tokio::main]
async fn main() {
    let agent = Reader::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Read example.com", ()).await.unwrap();
    println!("{}", run.output);
}
