use agentry::tool;

/// Look up the weather.
#[tool(nmae = "weather")]
fn get_weather(city: String) -> String {
    city
}

fn main() {}
