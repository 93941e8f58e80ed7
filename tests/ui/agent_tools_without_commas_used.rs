use agentry::prelude::*;

/// The weather.
///
/// # Arguments
/// * `city` - Where.
#[tool]
fn get_weather(city: String) -> String {
    format!("sunny in {city}")
}

/// Book a hotel.
///
/// # Arguments
/// * `city` - Where.
#[tool]
fn book_hotel(city: String) -> String {
    format!("booked in {city}")
}

/// You plan trips.
#[agent(tools(get_weather book_hotel))]
struct Planner;

#[tokio::main]
async fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Lisbon", ()).await.unwrap();
    println!("{}", run.output);
}
