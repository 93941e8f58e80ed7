use agentry::tool;

/// Look up the weather.
///
/// # Arguments
/// * `ctiy` - The city.
#[tool]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
