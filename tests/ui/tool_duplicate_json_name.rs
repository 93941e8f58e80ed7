use agentry::tool;

/// Book a flight.
#[tool]
fn book(from: String, #[arg(rename = "from")] origin: String) -> String {
    from + &origin
}

fn main() {}
