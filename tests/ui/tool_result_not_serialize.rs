use agentry::tool;

struct Forecast {
    degrees: i32,
}

/// Look up the weather.
#[tool]
fn get_weather(city: String) -> Forecast {
    Forecast {
        degrees: city.len() as i32,
    }
}

fn main() {}
