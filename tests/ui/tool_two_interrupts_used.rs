use agentry::prelude::*;

/// Book a table.
///
/// # Arguments
/// * `guests` - How many.
#[tool]
async fn book(guests: u32, when: Interrupt<String, String>, confirm: Interrupt<String, bool>) -> String {
    let time = when.ask("What time?".to_string()).await;
    let ok = confirm.ask(format!("{guests} at {time}?")).await;
    format!("{ok}")
}

/// You book tables.
#[agent(tools(book))]
struct Booker;

#[tokio::main]
async fn main() {
    let agent = Booker::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Two people", ()).await.unwrap();
    println!("{}", run.output);
}
