use agentry::tool;

/// Look up the weather.
#[tool(name = "weather", name = "forecast")]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
