use agentry::tool;

/// Look up the weather.
#[tool]
fn get_weather(#[arg(desc = "The city.")] city: String) -> String {
    city
}

fn main() {}
