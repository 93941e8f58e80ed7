use agentry::prelude::*;

/// Not `Display`.
#[derive(Debug)]
struct LookupFailed;

/// Look a word up.
///
/// # Arguments
/// * `word` - The word.
#[tool]
fn lookup(word: String) -> Result<String, LookupFailed> {
    if word.is_empty() { Err(LookupFailed) } else { Ok(word) }
}

/// You look words up.
#[agent(tools(lookup))]
struct Dictionary;

#[tokio::main]
async fn main() {
    let agent = Dictionary::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("rust", ()).await.unwrap();
    println!("{}", run.output);
}
