use agentry::prelude::*;

/// Book a room.
///
/// # Arguments
/// * `city` - The city.
/// * `nights` - How many nights.
/// * `city` - Where to stay.
#[tool]
fn book(city: String, nights: u32) -> String {
    format!("{city}{nights}")
}

fn main() {}
