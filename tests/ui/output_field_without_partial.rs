use agentry::output::StructuredOutput;
use agentry::prelude::{Deserialize, JsonSchema};

/// A unit, without the derive.
#[derive(Debug, Deserialize, JsonSchema)]
enum Units {
    Celsius,
    Fahrenheit,
}

/// A forecast.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Forecast {
    /// Degrees.
    degrees: f64,
    /// In what.
    units: Units,
}

fn main() {
    let forecast: Forecast = serde_json::from_str(r#"{"degrees": 20, "units": "Celsius"}"#).unwrap();
    forecast.validate().unwrap();
}
