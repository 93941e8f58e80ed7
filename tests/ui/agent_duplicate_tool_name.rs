use agentry::{agent, tool};

/// Find a flight.
///
/// # Arguments
/// * `query` - What to look for.
#[tool(name = "search")]
fn search_flights(query: String) -> String {
    query
}

/// Find a hotel.
///
/// # Arguments
/// * `query` - What to look for.
#[tool(name = "search")]
fn search_hotels(query: String) -> String {
    query
}

/// A planner.
#[agent(tools(search_flights, search_hotels))]
struct Planner;

fn main() {}
