use agentry::prelude::*;

/// A tally, without `Default`.
#[derive(Clone)]
struct Tally {
    seen: u32,
}

/// Count a word.
///
/// # Arguments
/// * `word` - The word.
#[tool]
fn count(word: String, tally: State<Tally>) -> String {
    format!("{word}: {}", tally.seen)
}

/// You count words.
#[agent(tools(count), state = Tally, as_tool(description = "Counts words."))]
struct Counter;

/// You write: ask the counter.
#[agent(tools(Counter))]
struct Writer;

#[tokio::main]
async fn main() {
    let agent = Writer::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Count 'rust'", ()).await.unwrap();
    println!("{}", run.output);
}
