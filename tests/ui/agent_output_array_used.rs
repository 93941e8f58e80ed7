use agentry::prelude::*;

/// Picks three films.
#[agent(tools(), output = [String; 3])]
struct Picker;

async fn pick() -> Result<(), Box<dyn std::error::Error>> {
    let agent = Picker::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("three films", ()).await?;
    let [first, _, _] = run.output;
    println!("{first}");
    Ok(())
}

fn main() {
    let _ = pick();
}
