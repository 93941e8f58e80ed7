use agentry::tool;

#[derive(Debug)]
struct LookupError;

/// Look up the weather.
#[tool]
fn get_weather(city: String) -> Result<String, LookupError> {
    if city.is_empty() {
        Err(LookupError)
    } else {
        Ok(city)
    }
}

fn main() {}
