use agentry::prelude::*;

/// Rates films.
#[agent(tools(), output = (String, u32))]
struct Critic;

async fn rate() -> Result<(), Box<dyn std::error::Error>> {
    let agent = Critic::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("rate Alien", ()).await?;
    let (title, score) = run.output;
    println!("{title}: {score}");
    Ok(())
}

fn main() {
    let _ = rate();
}
