use agentry::prelude::*;

/// A forecast, without `Serialize`.
#[derive(Debug)]
struct Forecast {
    degrees: i32,
}

/// The forecast.
///
/// # Arguments
/// * `city` - Where.
#[tool]
fn forecast(city: String) -> Forecast {
    Forecast { degrees: city.len() as i32 }
}

/// You forecast the weather.
#[agent(tools(forecast))]
struct Forecaster;

#[tokio::main]
async fn main() {
    let agent = Forecaster::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Lisbon", ()).await.unwrap();
    println!("{}", run.output);
}
