use agentry::{State, agent, tool};

#[derive(Default)]
struct Trip {
    cities: Vec<String>,
}
#[derive(Default)]
struct Cart;

/// Add a city to the trip.
///
/// # Arguments
/// * `city` - The city.
#[tool]
fn add_city(city: String, trip: State<Trip>) -> String {
    trip.update(move |t| t.cities.push(city));
    "added".to_string()
}

/// A planner.
#[agent(tools(add_city), state = Cart)]
struct Planner;

fn main() {}
