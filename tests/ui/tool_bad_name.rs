use agentry::tool;

/// Look up the weather.
#[tool(name = "get weather")]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
