use agentry::prelude::*;

/// Names films.
#[agent(tools(), output = &'static str)]
struct Namer;

async fn name() -> Result<(), Box<dyn std::error::Error>> {
    let agent = Namer::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("name a film", ()).await?;
    println!("{}", run.output.len());
    Ok(())
}

fn main() {
    let _ = name();
}
