use agentry::prelude::*;

/// The current time, as HH:MM.
#[tool]
fn get_time() -> String {
    "12:00".into()
}

/// You tell the time.
#[agent(tools(get_time))]
struct Clock;

async fn ask() {
    let model = agentry::testing::TestModel::new();
    let run = Clock::builder(model).run("What time is it?", ()).await.unwrap();
    println!("{}", run.output);
    let mut events = Clock::builder(agentry::testing::TestModel::new()).stream("Time?", ());
    let _ = futures::StreamExt::next(&mut events).await;
}

fn main() {
    let _ = ask();
}
